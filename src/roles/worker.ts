/** The worker role: the turn engine over the core, taking wake-ups. */
import { hostname } from "node:os";
import { AgentVersions } from "../worker/agent-versions.js";
import { Compactor } from "../worker/compactor.js";
import { Placements } from "../worker/placement.js";
import { Preparer } from "../worker/preparer.js";
import { SessionActor } from "../worker/session-actor.js";
import { SessionReaper } from "../worker/session-reaper.js";
import { SubjectSkillCache } from "../worker/subject-skills.js";
import { ToolSettler } from "../worker/tool-settler.js";
import { TurnEnding } from "../worker/turn-end.js";
import { TranscriptCache } from "../worker/transcript-cache.js";
import { Transcripts } from "../worker/transcripts.js";
import { TurnRunner } from "../worker/turn.js";
import { Delegations } from "../worker/delegations.js";
import { KickoffTimer } from "../worker/kickoff-timer.js";
import { WakeupConsumer } from "../worker/wakeup-consumer.js";
import { newId } from "../ids.js";
import { ProviderRegistry } from "../providers/registry.js";
import { createRedis } from "../redis/client.js";
import { Kickoffs } from "../worker/redis/kickoffs.js";
import { SkillEpochs } from "../agent-tools/redis/skill-epochs.js";
import { TurnDebits } from "../accounts/credits.js";
import { OwedDebits } from "../accounts/redis/owed-debits.js";
import { MemoryStore } from "../agent-tools/store/memories.js";
import { PastConversations } from "../sessions/store/past-conversations.js";
import { SubjectSkillStore } from "../agent-tools/store/subject-skills.js";
import { TodoStore } from "../agent-tools/store/todos.js";
import { ToolGrantStore } from "../worker/store/tool-grants.js";
import { BuiltinTools } from "../agent-tools/builtin.js";
import { SkillTools } from "../agent-tools/skills.js";
import { VisionTool } from "../agent-tools/vision.js";
import { TerminalTools } from "../agent-tools/terminal.js";
import { startToolIsolation } from "../agent-tools/sandbox/tool-isolation.js";
import { WebTools } from "../agent-tools/web.js";
import type { ThreadPlaces } from "../agent-tools/sandbox/thread-places.js";
import type { Services } from "../http/context.js";
import type { Connections, InnerServices, ProcessParts, RedisParts, Stores } from "./parts.js";

/** The core parts the worker stands on. */
export interface WorkerParts {
  process: Pick<ProcessParts, "config" | "log" | "outbound" | "outboundPolicy">;
  connections: Connections;
  stores: Pick<Stores, "sessions" | "agents">;
  redis: Pick<RedisParts, "eventLog" | "live" | "intents" | "wakeups" | "endings" | "locks" | "preparations">;
  inner: Pick<InnerServices, "transitions" | "mcp" | "budgets" | "credits" | "sessionFacts" | "projector">;
  /** The MCP installations, whose old requests expire from here (the worker and scheduler roles). */
  services: Pick<Services, "mcpInstallations" | "sessions">;
}

export interface WorkerRole {
  /** Stops taking wake-ups, waits for the turns, then ends the tools' processes and their sandbox. */
  stop(): Promise<void>;
}

/**
 * The worker role over the core: the turn engine (providers, tools and their sandbox, the session actor)
 * consuming wake-ups; with `consume` false (the scheduler role) only its recovery sweep runs. `threads`:
 * where deployment threads' tools run (the deployments module's). `shutdown` aborts what is running when
 * the process stops.
 */
export async function startWorkerRole(core: WorkerParts, threads: ThreadPlaces, consume: boolean, shutdown: AbortSignal): Promise<WorkerRole> {
  const { config, log, outbound } = core.process;
  const { mongo, redis, keys } = core.connections;
  const { eventLog, live, intents, wakeups, locks, preparations } = core.redis;
  const { transitions, mcp, budgets, credits, sessionFacts } = core.inner;
  const { sessions: sessionStore, agents: agentStore } = core.stores;
  let hints: ReturnType<typeof createRedis> | undefined;
  const grants = new ToolGrantStore(mongo.db);
  const versions = new AgentVersions(agentStore);
  const providers = new ProviderRegistry(config);
  const transcripts = new Transcripts(eventLog, new TranscriptCache({ sessions: config.transcriptCacheSessions, bytes: config.transcriptCacheMb * 2 ** 20 }));
  const limits = { memoryBytes: config.sandboxMemoryMb * 2 ** 20, fileBytes: config.sandboxFileSizeMb * 2 ** 20 };
  const terminal = new TerminalTools(limits, config.sandboxBackgroundTimeoutMs);
  const skillEpochs = new SkillEpochs(redis, keys);
  const skillStore = new SubjectSkillStore(mongo.db, skillEpochs);
  const subjectSkills = new SubjectSkillCache(skillStore, skillEpochs);
  const tools = new BuiltinTools(
    new MemoryStore(mongo.db),
    new TodoStore(mongo.db),
    new WebTools(outbound, config.webSearch),
    new SkillTools(skillStore),
    new VisionTool(outbound, providers),
    terminal,
  );
  const kickoff = new KickoffTimer(new Kickoffs(redis, keys), transitions, config.customToolKickoffMs, log);
  const isolation = await startToolIsolation(core.process.outboundPolicy, config.sandboxUnisolatedAllowed, log);
  const placements = new Placements({ workspaceRoot: config.workspaceRoot, isolation, threads });
  const reaper = new SessionReaper({ endings: core.redis.endings, terminal, placements, logger: log });
  reaper.start();
  const stopTools = async () => {
    await reaper.stop();
    await terminal.close();
    await isolation.close();
  };
  const debits = new TurnDebits(credits, new OwedDebits(redis, keys), eventLog, log);
  const delegations = new Delegations({ log: eventLog, transitions, sessions: core.services.sessions, logger: log });
  const ending = new TurnEnding({
    log: eventLog,
    transitions,
    sessions: sessionStore,
    sessionFacts,
    versions,
    debits,
    budgets: budgets,
    delegations,
    projector: core.inner.projector,
  });
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
    delegations,
    logger: log,
  });
  const compactor = new Compactor({ transcripts, providers, versions, transitions, logger: log, thresholdPercent: config.compactionThresholdPercent });
  const turns = new TurnRunner({
    log: eventLog,
    live,
    transitions,
    sessions: sessionStore,
    versions,
    grants,
    providers,
    settler,
    ending,
    transcripts,
    compactor,
    mcp,
    kickoff,
    subjectSkills,
    delegations,
    credits: credits,
    budgets: budgets,
    missingTools: new Set(tools.web.canSearch ? [] : ["web_search"]),
    logger: log,
  });
  const actor = new SessionActor({
    log: eventLog,
    transitions,
    sessionFacts,
    intents,
    locks,
    turns,
    compactor,
    ending,
    delegations,
    logger: log,
    lockTtlMs: config.lockTtlMs,
    shutdown,
  });
  const worker = new WakeupConsumer(core.connections.readers("agent-sessions-worker"), wakeups, intents, locks, transitions, actor, kickoff, log, {
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
    const preparer = new Preparer({ versions, sessionFacts, log: eventLog, mcp, placements, logger: log, shutdown });
    hints = createRedis(config, "agent-sessions-prepare");
    await preparations.listen(hints, (hint) => preparer.accept(hint));
  }
  const stopExpiry = core.services.mcpInstallations.expireEvery(3_600_000, (err) => log.warn("idempotency record expiry failed", { err }));
  debits.repairEvery(config.sweepIntervalMs, shutdown, (err) => log.warn("owed credit debits could not be repaired", { err }));
  return {
    async stop() {
      stopExpiry();
      hints?.disconnect();
      await worker.stop();
      // After the turns: a tool still running has been aborted, and no new background process starts.
      await stopTools();
    },
  };
}
