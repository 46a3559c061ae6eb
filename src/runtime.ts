/** The composition root: builds every component of one process from its config, the roles it runs, and the orderly teardown. */
import { hkdfSync } from "node:crypto";
import { hostname } from "node:os";
import { AgentVersions } from "../actors/agent-versions.js";
import { Compactor } from "../actors/compactor.js";
import { Placements } from "../actors/placement.js";
import { Preparer } from "../actors/preparation.js";
import { SessionActor } from "../actors/session-actor.js";
import { SessionReaper } from "../actors/session-reaper.js";
import { SessionRecords } from "../actors/session-records.js";
import { SubjectSkillCache } from "../actors/subject-skills.js";
import { ToolSettler } from "../actors/tool-settler.js";
import { TurnEnding } from "../actors/turn-end.js";
import { TranscriptCache } from "../actors/transcript-cache.js";
import { Transcripts } from "../actors/transcripts.js";
import { TurnRunner } from "../actors/turn.js";
import { KickoffTimer } from "../actors/kickoff-timer.js";
import { Scheduler } from "../actors/scheduler.js";
import { WakeupConsumer } from "../actors/wakeups.js";
import { systemClock, type Clock } from "./clock.js";
import { buildAccount, buildDeployments, detectSandboxEngine, startDeploymentSweeps, type DeploymentParts } from "./deployments-runtime.js";
import type { Config } from "./config.js";
import type { Services } from "./http/context.js";
import { encodeSseFrame } from "./http/sse-frame.js";
import { Validator } from "./http/validate.js";
import { newId } from "./ids.js";
import type { Logger } from "./log.js";
import { ProviderRegistry } from "./models/registry.js";
import { Allowances } from "./redis/allowances.js";
import { OpenStreams } from "./redis/open-streams.js";
import { AutomationQueue } from "./redis/automation-queue.js";
import { createRedis } from "./redis/client.js";
import { EventAppender } from "./redis/event-appender.js";
import { EventLog } from "./redis/event-log.js";
import { Intents } from "./redis/intents.js";
import { Kickoffs } from "./redis/kickoffs.js";
import { LiveEcho } from "./redis/live-echo.js";
import { LiveStream } from "./redis/live-stream.js";
import { Preparations } from "./redis/preparations.js";
import { IdempotencyKeys } from "./redis/idempotency.js";
import { Locks } from "./redis/locks.js";
import { AgentLimitsCache } from "./redis/agent-limits-cache.js";
import { SubjectSpend } from "./redis/subject-spend.js";
import { SkillEpochs } from "./redis/skill-epochs.js";
import { SessionEndings } from "./redis/session-endings.js";
import { StreamReader } from "./redis/stream-reader.js";
import { connectRedis } from "./redis-runtime.js";
import { OrgEpochs } from "./redis/org-epochs.js";
import { Wakeups } from "./redis/wakeups.js";
import { AccessService } from "./services/access.js";
import { AgentService } from "./services/agents.js";
import { Budgets } from "./services/budgets.js";
import { AutomationOccurrences } from "./services/automation-occurrences.js";
import { AutomationRunner } from "./services/automation-runs.js";
import { AutomationService } from "./services/automations.js";
import { EventStreams } from "./services/event-stream.js";
import { EventService } from "./services/events.js";
import { HealthService } from "./services/health.js";
import { SessionTransitions } from "./services/session-transitions.js";
import { AgentVaultService } from "./services/agent-vaults.js";
import { McpAccess } from "./services/mcp-access.js";
import { McpServerTests } from "./services/mcp-server-tests.js";
import { PreparationService } from "./services/preparation.js";
import { CredentialService } from "./services/credentials.js";
import { TurnDebits } from "./services/credits.js";
import { OwedDebits } from "./redis/owed-debits.js";
import { McpInstallationService } from "./services/mcp-installations.js";
import { VaultService } from "./services/vaults.js";
import { AgentVaultStore } from "./store/agent-vaults.js";
import { McpInstallationStore } from "./store/mcp-installations.js";
import { SecretBox } from "./store/secret-box.js";
import { CredentialStore } from "./store/vault-credentials.js";
import { VaultStore } from "./store/vaults.js";
import { SessionService } from "./services/sessions.js";
import { AgentStore } from "./store/agents.js";
import { AutomationRunStore } from "./store/automation-runs.js";
import { AutomationStore } from "./store/automations.js";
import { MemoryStore } from "./store/memories.js";
import { migrate } from "./store/migrations.js";
import { connectMongo, ensureIndexes, type MongoOptions } from "./store/mongo.js";
import { OrganizationStore } from "./store/organizations.js";
import { PastConversations } from "./store/past-conversations.js";
import { SessionStore } from "./store/sessions.js";
import { SubjectSkillStore } from "./store/subject-skills.js";
import { TodoStore } from "./store/todos.js";
import { ToolGrantStore } from "./store/tool-grants.js";
import { BuiltinTools } from "./tools/builtin.js";
import { McpConnections } from "./tools/mcp-connections.js";
import { SkillTools } from "./tools/skills.js";
import { guardedFetch, OutboundPolicy } from "./tools/outbound.js";
import { VisionTool } from "./tools/vision.js";
import { TerminalTools } from "./tools/terminal.js";
import { startToolIsolation } from "./tools/tool-isolation.js";
import { WebTools } from "./tools/web.js";
import { buildProjection } from "./webhooks-runtime.js";

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
