/** The parts every role of a process stands on (`parts.ts`): built once, grouped by what they are. */
import { hkdfSync } from "node:crypto";
import type { Clock } from "../clock.js";
import { deploymentsForCore } from "./deployments.js";
import type { Config } from "../config.js";
import { encodeSseFrame } from "../streaming/http/sse-frame.js";
import { validatorFor } from "../http/validate.js";
import { modelProviders } from "../config-endpoints.js";
import type { Logger } from "../log.js";
import { Allowances } from "../sessions/redis/allowances.js";
import { OpenStreams } from "../streaming/redis/open-streams.js";
import { AutomationQueue } from "../automations/redis/automation-queue.js";
import { EventAppender } from "../sessions/redis/event-appender.js";
import { EventLog } from "../sessions/redis/event-log.js";
import { Intents } from "../sessions/redis/intents.js";
import { LiveEcho } from "../streaming/redis/live-echo.js";
import { LiveStream } from "../streaming/redis/live-stream.js";
import { Preparations } from "../sessions/redis/preparation-hints.js";
import { IdempotencyKeys } from "../idempotency/index.js";
import { Locks } from "../redis/locks.js";
import { AgentLimitsCache } from "../agents/redis/agent-limits-cache.js";
import { SubjectSpend } from "../sessions/redis/subject-spend.js";
import { SessionEndings } from "../sessions/redis/session-endings.js";
import { StreamReader } from "../streaming/redis/stream-reader.js";
import { connectRedis } from "./redis.js";
import { OrgEpochs } from "../redis/org-epochs.js";
import { Wakeups } from "../sessions/redis/wakeups.js";
import { AccessService } from "../accounts/access.js";
import { AgentService } from "../agents/agents.js";
import { Budgets } from "../sessions/budgets.js";
import { AutomationOccurrences } from "../automations/automation-occurrences.js";
import { AutomationRunner } from "../automations/automation-runs.js";
import { AutomationService } from "../automations/automations.js";
import { EventStreams } from "../streaming/event-stream.js";
import { EventService } from "../sessions/events.js";
import { HealthService } from "../health/readiness.js";
import { SessionTransitions } from "../sessions/transitions.js";
import { AgentVaultService } from "../vaults/agent-vaults.js";
import { McpAccess } from "../vaults/mcp-access.js";
import { McpServerTests } from "../vaults/mcp-server-tests.js";
import { PreparationService } from "../sessions/prewarm.js";
import { CredentialService } from "../vaults/credentials.js";
import { McpInstallationService } from "../vaults/mcp-installations.js";
import { VaultService } from "../vaults/vaults.js";
import { AgentVaultStore } from "../vaults/store/agent-vaults.js";
import { McpInstallationStore } from "../vaults/store/mcp-installations.js";
import { SecretBox } from "../vaults/store/secret-box.js";
import { CredentialStore } from "../vaults/store/vault-credentials.js";
import { VaultStore } from "../vaults/store/vaults.js";
import { SessionService } from "../sessions/sessions.js";
import { SessionForks } from "../sessions/forks.js";
import { ForkCopier } from "../sessions/redis/fork-copier.js";
import { AgentStore } from "../agents/store/agents.js";
import { AutomationRunStore } from "../automations/store/automation-runs.js";
import { AutomationStore } from "../automations/store/automations.js";
import { migrate } from "../mongo/migrations.js";
import { connectMongo, ensureIndexes, type MongoOptions } from "../mongo/mongo.js";
import { OrganizationStore } from "../accounts/store/organizations.js";
import { SessionStore } from "../sessions/store/sessions.js";
import { SessionFactsCache } from "../sessions/session-facts.js";
import { McpConnections } from "../vaults/mcp/mcp-connections.js";
import { guardedFetch, OutboundPolicy } from "../outbound/outbound.js";
import { buildProjection } from "./webhooks.js";
import type { Core } from "./parts.js";
import { CreditService } from "../accounts/credits.js";
import { CreditStore } from "../accounts/store/credits.js";
import { SecretService } from "../vaults/secrets.js";
import { SecretStore } from "../vaults/store/secrets.js";

/** The installation store's hashing key, derived from the vault key (a key of its own: the vault key is never used for two jobs). */
const hkdfPepper = (vaultKey: Buffer) => Buffer.from(hkdfSync("sha256", vaultKey, Buffer.alloc(0), "mcp-installation-requests", 32));

export async function buildCore(config: Config, log: Logger, mongoOptions: MongoOptions, clock: Clock): Promise<Core> {
  const validator = validatorFor(modelProviders(config.modelEndpoints));
  const mongo = await connectMongo(config.mongoUrl, mongoOptions);
  await ensureIndexes(mongo.db);
  await migrate(mongo.db);
  const { redis, keys, readers } = connectRedis(config);
  await redis.ping();

  const locks = new Locks(redis, keys);
  const stores = {
    organizations: new OrganizationStore(mongo.db),
    agents: new AgentStore(mongo.db, (id, write) => locks.withRecord("agents", id, write)),
    sessions: new SessionStore(mongo.db),
    automations: new AutomationStore(mongo.db),
  };
  const echo = new LiveEcho(keys, log);
  const redisParts = {
    eventLog: new EventLog(redis, keys),
    appender: new EventAppender(redis, keys, echo),
    live: new LiveStream(redis, keys, echo),
    intents: new Intents(redis, keys),
    wakeups: new Wakeups(redis, keys),
    endings: new SessionEndings(redis, keys),
    preparations: new Preparations(redis, keys),
    locks,
    automationQueue: new AutomationQueue(redis, keys),
  };
  const { eventLog, intents } = redisParts;
  const allowances = new Allowances(redis, keys);
  const limitsCache = new AgentLimitsCache(redis, keys);
  const budgets = new Budgets(stores.sessions, stores.agents, limitsCache, new SubjectSpend(redis, keys));
  const vaultEpochs = new OrgEpochs(redis, (orgId) => keys.vaultEpoch(orgId));
  const box = config.vaultKeys && new SecretBox(config.vaultKeys.current, config.vaultKeys.older);
  const vaultStores = {
    vaults: new VaultStore(mongo.db, vaultEpochs),
    credentials: new CredentialStore(mongo.db, box, vaultEpochs),
    agentVaults: new AgentVaultStore(mongo.db, vaultEpochs),
  };
  const { projector, records, webhooks } = buildProjection({
    db: mongo.db,
    box,
    locks,
    sessionStore: stores.sessions,
    eventLog,
    intents,
    log,
    webhookEpochs: new OrgEpochs(redis, (orgId) => keys.webhookEpoch(orgId)),
  });
  const transitions = new SessionTransitions(eventLog, redisParts.appender, intents, projector, records);
  // What the core asks of deployments (who names a secret, what a deployment's features allow), supplied by them.
  const fromDeployments = deploymentsForCore(mongo.db, locks);
  const outboundPolicy = new OutboundPolicy(config.outboundAllowedNetworks);
  const outbound = guardedFetch(outboundPolicy);
  const mcpPool = new McpConnections({ timeoutMs: config.mcpTimeoutMs, fetch: outbound });
  const { vaults, credentials, agentVaults: agentVaultStore } = vaultStores;
  const agentVaults = new AgentVaultService(stores.agents, agentVaultStore, vaults, credentials);
  const mcp = new McpAccess({ epochs: vaultEpochs, attachments: agentVaultStore, vaults, credentials, locks, pool: mcpPool, fetch: outbound, logger: log });
  const prewarm = new PreparationService(stores.agents, agentVaults, redisParts.preparations, log);
  const sessions = new SessionService(stores.sessions, stores.agents, eventLog, transitions, intents, allowances, prewarm, redisParts.endings);
  const sessionFacts = new SessionFactsCache(stores.sessions);
  const events = new EventService(sessionFacts, eventLog, transitions, budgets);
  const automationRuns = new AutomationRunStore(mongo.db);
  const runner = new AutomationRunner(stores.agents, sessions, events, eventLog, fromDeployments.automationGate);
  const occurrences = new AutomationOccurrences(stores.automations, automationRuns, runner, clock);
  let reader: StreamReader | undefined;
  const streamReader = () => (reader ??= echo.attach(new StreamReader(readers("agent-sessions-sse"), redis, log)));
  const installations = new McpInstallationStore(mongo.db, config.vaultKeys && hkdfPepper(config.vaultKeys.current));

  return {
    process: { config, log, clock, validator, outboundPolicy, outbound, mcpPool, streamReader, stopReader: async () => reader?.stop() },
    connections: { mongo, redis, keys, readers },
    stores: { ...stores, ...vaultStores },
    redis: redisParts,
    inner: {
      transitions,
      projector,
      sessionFacts,
      budgets,
      mcp,
      occurrences,
      automationGate: fromDeployments.automationGate,
      credits: new CreditService(new CreditStore(mongo.db)),
      secrets: new SecretService(new SecretStore(mongo.db, box), fromDeployments.secretUsers),
      webhooks,
    },
    services: {
      config,
      log,
      validator,
      access: new AccessService(stores.organizations, allowances),
      health: new HealthService(mongo, redis),
      agents: new AgentService(stores.agents, stores.sessions, limitsCache, budgets),
      sessions,
      forks: new SessionForks(stores.sessions, sessions, stores.agents, eventLog, new ForkCopier(redis, keys), allowances, prewarm),
      events,
      automations: new AutomationService(
        stores.automations,
        automationRuns,
        redisParts.automationQueue,
        occurrences,
        stores.agents,
        sessions,
        clock,
        fromDeployments.automationGate,
      ),
      vaults: new VaultService(vaults, credentials, agentVaultStore),
      agentVaults,
      credentials: new CredentialService(vaults, credentials),
      mcpServerTests: new McpServerTests(stores.agents, mcp),
      mcpInstallations: new McpInstallationService(stores.agents, agentVaultStore, vaults, credentials, installations),
      webhooks: webhooks.service,
      idempotency: new IdempotencyKeys(redis, keys),
      streams: new EventStreams(eventLog, redisParts.live, streamReader, encodeSseFrame, log),
      openStreams: new OpenStreams(redis, keys, config.sseStreamsPerOrganization, log),
    },
  };
}
