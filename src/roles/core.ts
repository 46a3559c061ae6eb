/** The parts every role of a process stands on: the stores, Redis, and the services the HTTP interfaces call. */
import { hkdfSync } from "node:crypto";
import type { Clock } from "../clock.js";
import { buildAccount, detectSandboxEngine } from "./deployments.js";
import type { Config } from "../config.js";
import type { Services } from "../http/context.js";
import { encodeSseFrame } from "../streaming/http/sse-frame.js";
import { Validator } from "../http/validate.js";
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

/** The installation store's hashing key, derived from the vault key (a key of its own: the vault key is never used for two jobs). */
const hkdfPepper = (vaultKey: Buffer) => Buffer.from(hkdfSync("sha256", vaultKey, Buffer.alloc(0), "mcp-installation-requests", 32));

/** Everything one process is built from: the HTTP layer's services, and the parts beneath them (for operator commands and tests). */
export type Core = Awaited<ReturnType<typeof buildCore>>;

export async function buildCore(config: Config, log: Logger, mongoOptions: MongoOptions, clock: Clock) {
  const validator = new Validator();
  const mongo = await connectMongo(config.mongoUrl, mongoOptions);
  await ensureIndexes(mongo.db);
  await migrate(mongo.db);
  const { redis, keys, readers } = connectRedis(config);
  await redis.ping();

  const organizations = new OrganizationStore(mongo.db);
  const agentStore = new AgentStore(mongo.db);
  const sessionStore = new SessionStore(mongo.db);
  const sessionFacts = new SessionFactsCache(sessionStore);
  const eventLog = new EventLog(redis, keys);
  const echo = new LiveEcho(keys, log);
  const appender = new EventAppender(redis, keys, echo);
  const live = new LiveStream(redis, keys, echo);
  const intents = new Intents(redis, keys);
  const endings = new SessionEndings(redis, keys);
  const wakeups = new Wakeups(redis, keys);
  const allowances = new Allowances(redis, keys);
  const limitsCache = new AgentLimitsCache(redis, keys);
  const budgets = new Budgets(sessionStore, agentStore, limitsCache, new SubjectSpend(redis, keys));
  const vaultEpochs = new OrgEpochs(redis, (orgId) => keys.vaultEpoch(orgId));
  const vaultStore = new VaultStore(mongo.db, vaultEpochs);
  const box = config.vaultKeys && new SecretBox(config.vaultKeys.current, config.vaultKeys.older);
  const credentialStore = new CredentialStore(mongo.db, box, vaultEpochs);
  const locks = new Locks(redis, keys);
  const { projector, records, webhooks } = buildProjection({
    db: mongo.db,
    box,
    locks,
    sessionStore,
    eventLog,
    intents,
    log,
    webhookEpochs: new OrgEpochs(redis, (orgId) => keys.webhookEpoch(orgId)),
  });
  const transitions = new SessionTransitions(eventLog, appender, intents, projector, records);
  const { credits, secrets, secretRefs, gate } = buildAccount(mongo.db, box, locks);
  const docker = await detectSandboxEngine(config, log);
  const agentVaultStore = new AgentVaultStore(mongo.db, vaultEpochs);
  // Every request to a URL a caller configured (MCP servers, token endpoints) goes through the outbound guard.
  const outboundPolicy = new OutboundPolicy(config.outboundAllowedNetworks);
  const outbound = guardedFetch(outboundPolicy);
  const mcpPool = new McpConnections({ timeoutMs: config.mcpTimeoutMs, fetch: outbound });
  const preparations = new Preparations(redis, keys);
  const agentVaults = new AgentVaultService(agentStore, agentVaultStore, vaultStore, credentialStore);
  const mcp = new McpAccess({
    epochs: vaultEpochs,
    attachments: agentVaultStore,
    vaults: vaultStore,
    credentials: credentialStore,
    locks,
    pool: mcpPool,
    fetch: outbound,
    logger: log,
  });
  const sessions = new SessionService(
    sessionStore,
    agentStore,
    eventLog,
    transitions,
    intents,
    allowances,
    new PreparationService(agentStore, agentVaults, preparations, log),
    endings,
  );
  const events = new EventService(sessionFacts, eventLog, transitions, budgets);
  const automationStore = new AutomationStore(mongo.db);
  const automationRuns = new AutomationRunStore(mongo.db);
  const automationQueue = new AutomationQueue(redis, keys);
  const occurrences = new AutomationOccurrences(automationStore, automationRuns, new AutomationRunner(agentStore, sessions, events, eventLog, gate), clock);
  let reader: StreamReader | undefined;
  const streamReader = () => (reader ??= echo.attach(new StreamReader(readers("agent-sessions-sse"), redis, log)));

  return {
    config,
    log,
    docker,
    validator,
    mongo,
    redis,
    keys,
    readers,
    organizations,
    agentStore,
    sessionStore,
    sessionFacts,
    eventLog,
    appender,
    live,
    intents,
    wakeups,
    endings,
    transitions,
    projector,
    vaultStore,
    credentialStore,
    agentVaultStore,
    locks,
    outboundPolicy,
    outbound,
    mcpPool,
    mcp,
    preparations,
    secrets,
    secretRefs,
    access: new AccessService(organizations, allowances),
    health: new HealthService(mongo, redis),
    agents: new AgentService(agentStore, sessionStore, limitsCache, budgets),
    sessions,
    events,
    budgets,
    clock,
    automationStore,
    automationQueue,
    occurrences,
    automationGate: gate,
    automations: new AutomationService(automationStore, automationRuns, automationQueue, occurrences, agentStore, sessions, clock, gate),
    vaults: new VaultService(vaultStore, credentialStore, agentVaultStore),
    credentials: new CredentialService(vaultStore, credentialStore),
    credits,
    idempotency: new IdempotencyKeys(redis, keys),
    webhooks: webhooks.service,
    webhookParts: webhooks,
    agentVaults,
    mcpServerTests: new McpServerTests(agentStore, mcp),
    mcpInstallations: new McpInstallationService(
      agentStore,
      agentVaultStore,
      vaultStore,
      credentialStore,
      new McpInstallationStore(mongo.db, config.vaultKeys && hkdfPepper(config.vaultKeys.current)),
    ),
    streams: new EventStreams(eventLog, live, streamReader, encodeSseFrame, log),
    openStreams: new OpenStreams(redis, keys, config.sseStreamsPerOrganization, log),
    /** The process's shared SSE reader, started on first use. */
    streamReader,
    stopReader: async () => reader?.stop(),
  } satisfies Services & Record<string, unknown>;
}
