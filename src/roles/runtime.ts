/** The composition root: builds every component of one process from its config, the roles it runs, and the orderly teardown. */
import { hkdfSync } from "node:crypto";
import { hostname } from "node:os";
import { AgentVersions } from "../worker/agent-versions.js";
import { Compactor } from "../worker/compactor.js";
import { Placements } from "../worker/placement.js";
import { Preparer } from "../worker/preparer.js";
import { SessionActor } from "../worker/session-actor.js";
import { SessionReaper } from "../worker/session-reaper.js";
import { SessionRecords } from "../worker/session-records.js";
import { SubjectSkillCache } from "../worker/subject-skills.js";
import { ToolSettler } from "../worker/tool-settler.js";
import { TurnEnding } from "../worker/turn-end.js";
import { TranscriptCache } from "../worker/transcript-cache.js";
import { Transcripts } from "../worker/transcripts.js";
import { TurnRunner } from "../worker/turn.js";
import { KickoffTimer } from "../worker/kickoff-timer.js";
import { Scheduler } from "../automations/scheduler.js";
import { WakeupConsumer } from "../worker/wakeup-consumer.js";
import { systemClock, type Clock } from "../clock.js";
import { buildAccount, buildDeployments, detectSandboxEngine, startDeploymentSweeps, type DeploymentParts } from "./deployments.js";
import type { Config } from "../config.js";
import type { Services } from "../http/context.js";
import { encodeSseFrame } from "../streaming/http/sse-frame.js";
import { Validator } from "../http/validate.js";
import { newId } from "../ids.js";
import type { Logger } from "../log.js";
import { ProviderRegistry } from "../providers/registry.js";
import { Allowances } from "../sessions/redis/allowances.js";
import { OpenStreams } from "../streaming/redis/open-streams.js";
import { AutomationQueue } from "../automations/redis/automation-queue.js";
import { createRedis } from "../redis/client.js";
import { EventAppender } from "../sessions/redis/event-appender.js";
import { EventLog } from "../sessions/redis/event-log.js";
import { Intents } from "../sessions/redis/intents.js";
import { Kickoffs } from "../worker/redis/kickoffs.js";
import { LiveEcho } from "../streaming/redis/live-echo.js";
import { LiveStream } from "../streaming/redis/live-stream.js";
import { Preparations } from "../sessions/redis/preparation-hints.js";
import { IdempotencyKeys } from "../idempotency/redis/records.js";
import { Locks } from "../redis/locks.js";
import { AgentLimitsCache } from "../agents/redis/agent-limits-cache.js";
import { SubjectSpend } from "../sessions/redis/subject-spend.js";
import { SkillEpochs } from "../agent-tools/redis/skill-epochs.js";
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
import { TurnDebits } from "../accounts/credits.js";
import { OwedDebits } from "../accounts/redis/owed-debits.js";
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
import { MemoryStore } from "../agent-tools/store/memories.js";
import { migrate } from "../mongo/migrations.js";
import { connectMongo, ensureIndexes, type MongoOptions } from "../mongo/mongo.js";
import { OrganizationStore } from "../accounts/store/organizations.js";
import { PastConversations } from "../sessions/store/past-conversations.js";
import { SessionStore } from "../sessions/store/sessions.js";
import { SubjectSkillStore } from "../agent-tools/store/subject-skills.js";
import { TodoStore } from "../agent-tools/store/todos.js";
import { ToolGrantStore } from "../worker/store/tool-grants.js";
import { BuiltinTools } from "../agent-tools/builtin.js";
import { McpConnections } from "../vaults/mcp/mcp-connections.js";
import { SkillTools } from "../agent-tools/skills.js";
import { guardedFetch, OutboundPolicy } from "../outbound/outbound.js";
import { VisionTool } from "../agent-tools/vision.js";
import { TerminalTools } from "../agent-tools/terminal.js";
import { startToolIsolation } from "../agent-tools/sandbox/tool-isolation.js";
import { WebTools } from "../agent-tools/web.js";
import { buildProjection } from "./webhooks.js";

/** The installation store's hashing key, derived from the vault key (a key of its own: the vault key is never used for two jobs). */
const hkdfPepper = (vaultKey: Buffer) => Buffer.from(hkdfSync("sha256", vaultKey, Buffer.alloc(0), "mcp-installation-requests", 32));

/** Everything one process is built from: the HTTP layer's services, and the parts beneath them (for operator commands and tests). */
export type Components = Awaited<ReturnType<typeof buildComponents>>;

export interface Runtime {
  components: Components;
  /** The deployments interface's services and background work. */
  deployments: DeploymentParts;
  /** Starts the worker side (turns) or, for the scheduler role, only the recovery sweep. */
  startWorker(consume: boolean): Promise<void>;
  /** Starts firing automations, and the deployments' recovery sweeps (the scheduler and all roles). */
  startScheduler(): Promise<void>;
  close(): Promise<void>;
}

async function buildComponents(config: Config, log: Logger, mongoOptions: MongoOptions, clock: Clock) {
  const validator = new Validator();
  const mongo = await connectMongo(config.mongoUrl, mongoOptions);
  await ensureIndexes(mongo.db);
  await migrate(mongo.db);
  const { redis, keys, readers } = connectRedis(config);
  await redis.ping();

  const organizations = new OrganizationStore(mongo.db);
  const agentStore = new AgentStore(mongo.db);
  const sessionStore = new SessionStore(mongo.db);
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
  const { projector, records, webhooks } = buildProjection({ db: mongo.db, box, locks, sessionStore, eventLog, intents, log, webhookEpochs: new OrgEpochs(redis, (orgId) => keys.webhookEpoch(orgId)) });
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
  const mcp = new McpAccess({ epochs: vaultEpochs, attachments: agentVaultStore, vaults: vaultStore, credentials: credentialStore, locks, pool: mcpPool, fetch: outbound, logger: log });
  const sessions = new SessionService(sessionStore, agentStore, eventLog, transitions, intents, allowances, new PreparationService(agentStore, agentVaults, preparations, log), endings);
  const events = new EventService(sessionStore, eventLog, transitions, budgets);
  const automationStore = new AutomationStore(mongo.db);
  const automationRuns = new AutomationRunStore(mongo.db);
  const automationQueue = new AutomationQueue(redis, keys);
  const occurrences = new AutomationOccurrences(automationStore, automationRuns, new AutomationRunner(agentStore, sessions, events, eventLog, gate), clock);
  let reader: StreamReader | undefined;
  const streamReader = () => (reader ??= echo.attach(new StreamReader(readers("agent-sessions-sse"), redis, log)));

  return {
    config, log, docker, validator, mongo, redis, keys, readers, organizations, agentStore, sessionStore, eventLog, appender, live, intents, wakeups, endings,
    transitions, projector, vaultStore, credentialStore, agentVaultStore, locks, outboundPolicy, outbound, mcpPool, mcp, preparations, secrets, secretRefs,
    access: new AccessService(organizations, allowances),
    health: new HealthService(mongo, redis),
    agents: new AgentService(agentStore, sessionStore, limitsCache, budgets),
    sessions, events, budgets, clock, automationStore, automationQueue, occurrences, automationGate: gate,
    automations: new AutomationService(automationStore, automationRuns, automationQueue, occurrences, agentStore, sessions, clock, gate),
    vaults: new VaultService(vaultStore, credentialStore, agentVaultStore),
    credentials: new CredentialService(vaultStore, credentialStore),
    credits, idempotency: new IdempotencyKeys(redis, keys), webhooks: webhooks.service, webhookParts: webhooks,
    agentVaults,
    mcpServerTests: new McpServerTests(agentStore, mcp),
    mcpInstallations: new McpInstallationService(agentStore, agentVaultStore, vaultStore, credentialStore, new McpInstallationStore(mongo.db, config.vaultKeys && hkdfPepper(config.vaultKeys.current))),
    streams: new EventStreams(eventLog, live, streamReader, encodeSseFrame, log),
    openStreams: new OpenStreams(redis, keys, config.sseStreamsPerOrganization, log),
    /** The process's shared SSE reader, started on first use. */
    streamReader,
    stopReader: async () => reader?.stop(),
  } satisfies Services & Record<string, unknown>;
}

/**
 * `mongo`: options of the MongoDB client beyond the config (a benchmark watches its commands); `clock`:
 * the time automations are scheduled by (a test's, moved by hand).
 */
export async function createRuntime(config: Config, log: Logger, opts: { mongo?: MongoOptions; clock?: Clock } = {}): Promise<Runtime> {
  const components = await buildComponents(config, log, opts.mongo ?? {}, opts.clock ?? systemClock);
  const { mongo, redis, eventLog, live, transitions, sessionStore, agentStore, intents, wakeups, locks, mcp, mcpPool, outbound, preparations } = components;
  let worker: WakeupConsumer | undefined;
  let scheduler: Scheduler | undefined;
  let hints: ReturnType<typeof createRedis> | undefined;
  let stopExpiry: (() => void) | undefined;
  let stopTools: (() => Promise<void>) | undefined;
  let stopSweeps: (() => void) | undefined;
  const deployments = buildDeployments(components, { credits: components.credits, secrets: components.secrets });
  const shutdown = new AbortController();

  return {
    components,
    deployments,
    async startWorker(consume: boolean) {
      const grants = new ToolGrantStore(mongo.db);
      const records = new SessionRecords(sessionStore);
      const versions = new AgentVersions(agentStore);
      const providers = new ProviderRegistry(config);
      const transcripts = new Transcripts(eventLog, new TranscriptCache({ sessions: config.transcriptCacheSessions, bytes: config.transcriptCacheMb * 2 ** 20 }));
      const limits = { memoryBytes: config.sandboxMemoryMb * 2 ** 20, fileBytes: config.sandboxFileSizeMb * 2 ** 20 };
      const terminal = new TerminalTools(limits, config.sandboxBackgroundTimeoutMs);
      const skillEpochs = new SkillEpochs(redis, components.keys);
      const skillStore = new SubjectSkillStore(mongo.db, skillEpochs);
      const subjectSkills = new SubjectSkillCache(skillStore, skillEpochs);
      const tools = new BuiltinTools(new MemoryStore(mongo.db), new TodoStore(mongo.db), new WebTools(outbound, config.webSearch), new SkillTools(skillStore), new VisionTool(outbound, providers), terminal);
      const kickoff = new KickoffTimer(new Kickoffs(redis, components.keys), transitions, config.customToolKickoffMs, log);
      const isolation = await startToolIsolation(components.outboundPolicy, config.sandboxUnisolatedAllowed, log);
      const placements = new Placements({ workspaceRoot: config.workspaceRoot, docker: components.docker, isolation, deployments: components.secretRefs, secrets: components.secrets, logger: log });
      const reaper = new SessionReaper({ endings: components.endings, terminal, placements, logger: log });
      reaper.start();
      stopTools = async () => {
        await reaper.stop();
        await terminal.close();
        await isolation.close();
      };
      const debits = new TurnDebits(components.credits, new OwedDebits(redis, components.keys), eventLog, log);
      const ending = new TurnEnding({ log: eventLog, transitions, sessions: sessionStore, records, versions, debits, budgets: components.budgets });
      const settler = new ToolSettler({
        transitions,
        tools,
        grants,
        past: new PastConversations(sessionStore, eventLog),
        placements,
        mcp,
        kickoff,
        subjectSkills,
        log: eventLog,
        logger: log,
      });
      const compactor = new Compactor({ transcripts, providers, versions, transitions, logger: log, thresholdPercent: config.compactionThresholdPercent });
      const turns = new TurnRunner({
        log: eventLog, live, transitions, sessions: sessionStore, versions, grants, providers, settler, ending, transcripts, compactor, mcp, kickoff, subjectSkills,
        credits: components.credits,
        budgets: components.budgets,
        missingTools: new Set(tools.web.canSearch ? [] : ["web_search"]),
        logger: log,
      });
      const actor = new SessionActor({
        log: eventLog,
        transitions,
        records,
        intents,
        locks,
        turns,
        compactor,
        ending,
        logger: log,
        lockTtlMs: config.lockTtlMs,
        shutdown: shutdown.signal,
      });
      worker = new WakeupConsumer(components.readers("agent-sessions-worker"), wakeups, intents, locks, transitions, actor, kickoff, log, {
        consumer: `${hostname()}-${process.pid}-${newId("wrk")}`,
        concurrency: config.workerConcurrency,
        claimIdleMs: config.claimIdleMs,
        sweepIntervalMs: config.sweepIntervalMs,
        lockTtlMs: config.lockTtlMs,
        consume,
      });
      await worker.start();
      if (consume) {
        // Every consuming worker hears every preparation hint: what it prepares is in its own memory.
        const preparer = new Preparer({ versions, records, log: eventLog, mcp, placements, logger: log, shutdown: shutdown.signal });
        hints = createRedis(config, "agent-sessions-prepare");
        await preparations.listen(hints, (hint) => preparer.accept(hint));
      }
      stopExpiry = components.mcpInstallations.expireEvery(3_600_000, (err) => log.warn("idempotency record expiry failed", { err }));
      debits.repairEvery(config.sweepIntervalMs, shutdown.signal, (err) => log.warn("owed credit debits could not be repaired", { err }));
    },
    async startScheduler() {
      const { automationQueue: queue, occurrences, automationStore: store, clock } = components;
      scheduler = new Scheduler({ queue, occurrences, store, clock, logger: log }, { concurrency: config.schedulerConcurrency, repairEveryMs: config.automationRepairMs, leaseMs: config.automationLeaseMs });
      scheduler.start();
      stopSweeps = startDeploymentSweeps(deployments, { sweepMs: config.deploymentSweepMs, sendMs: config.webhookSweepMs }, (err) => log.warn("deployment sweep failed", { err }));
    },
    async close() {
      shutdown.abort();
      await scheduler?.stop();
      stopSweeps?.();
      stopExpiry?.();
      hints?.disconnect();
      await Promise.allSettled([worker?.stop(), components.stopReader(), components.openStreams.close()]);
      // After the turns: a tool still running has been aborted, and no new background process starts.
      await stopTools?.();
      await mcpPool.close();
      await outbound.close();
      // Records of the last commits are written before the connections go (else the sweep repairs them).
      await components.projector.drain();
      await Promise.allSettled([redis.quit(), mongo.client.close()]);
    },
  };
}
