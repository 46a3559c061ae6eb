/** Builds the services of one process from its config, the roles it runs, and the orderly teardown. */
import { hostname } from "node:os";
import { SessionActor } from "../actors/session-actor.js";
import { TurnRunner } from "../actors/turn.js";
import { WakeupConsumer } from "../actors/wakeups.js";
import type { Config } from "./config.js";
import type { Services } from "./http/context.js";
import { Validator } from "./http/validate.js";
import type { Logger } from "./log.js";
import { ProviderRegistry } from "./models/registry.js";
import { Allowances } from "./redis/allowances.js";
import { createRedis } from "./redis/client.js";
import { EventLog } from "./redis/event-log.js";
import { Keys } from "./redis/keys.js";
import { Locks } from "./redis/locks.js";
import { RateLimitCache } from "./redis/rate-limit-cache.js";
import { StreamReader } from "./redis/stream-reader.js";
import { Wakeups } from "./redis/wakeups.js";
import { AgentService } from "./services/agents.js";
import { EventService } from "./services/events.js";
import { SessionService } from "./services/sessions.js";
import { AgentStore } from "./store/agents.js";
import { connectMongo, ensureIndexes } from "./store/mongo.js";
import { OrganizationStore } from "./store/organizations.js";
import { SessionStore } from "./store/sessions.js";
import { ToolGrantStore } from "./store/tool-grants.js";
import { BuiltinTools } from "./tools/builtin.js";
import { newId } from "./ids.js";

export interface Runtime {
  services: Services;
  /** Starts the worker side (turns) or, for the scheduler role, only the recovery sweep. */
  startWorker(consume: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function createRuntime(config: Config, log: Logger): Promise<Runtime> {
  const validator = new Validator();
  const mongo = await connectMongo(config.mongoUrl);
  await ensureIndexes(mongo.db);
  const redis = createRedis(config.redisUrl, "agent-sessions");
  await redis.ping();

  const agentStore = new AgentStore(mongo.db);
  const sessionStore = new SessionStore(mongo.db);
  const keys = new Keys(config.redisKeyPrefix);
  const eventLog = new EventLog(redis, keys);
  const allowances = new Allowances(redis, keys);
  const wakeups = new Wakeups(redis, keys);
  const limitsCache = new RateLimitCache(redis, keys);
  let reader: StreamReader | undefined;
  let worker: WakeupConsumer | undefined;
  const shutdown = new AbortController();

  const services: Services = {
    config,
    log,
    mongo,
    redis,
    validator,
    organizations: new OrganizationStore(mongo.db),
    agentStore,
    sessionStore,
    eventLog,
    agents: new AgentService(agentStore, sessionStore, limitsCache),
    sessions: new SessionService(sessionStore, agentStore, eventLog, allowances),
    events: new EventService(sessionStore, agentStore, eventLog, allowances, wakeups, limitsCache, log),
    streamReader: () => (reader ??= new StreamReader(createRedis(config.redisUrl, "agent-sessions-sse"), redis, log)),
  };

  return {
    services,
    async startWorker(consume: boolean) {
      const turns = new TurnRunner({
        log: eventLog,
        sessions: sessionStore,
        agents: agentStore,
        providers: new ProviderRegistry(config),
        tools: new BuiltinTools(mongo.db),
        grants: new ToolGrantStore(mongo.db),
        workspaceRoot: config.workspaceRoot,
        logger: log,
      });
      const actor = new SessionActor({
        log: eventLog,
        sessions: sessionStore,
        wakeups,
        locks: new Locks(redis),
        turns,
        logger: log,
        lockTtlMs: config.lockTtlMs,
        shutdown: shutdown.signal,
      });
      worker = new WakeupConsumer(createRedis(config.redisUrl, "agent-sessions-worker"), redis, wakeups, actor, log, {
        consumer: `${hostname()}-${process.pid}-${newId("wrk")}`,
        concurrency: config.workerConcurrency,
        claimIdleMs: config.claimIdleMs,
        sweepIntervalMs: config.sweepIntervalMs,
        consume,
      });
      await worker.start();
    },
    async close() {
      shutdown.abort();
      await Promise.allSettled([worker?.stop(), reader?.stop()]);
      await Promise.allSettled([redis.quit(), mongo.client.close()]);
    },
  };
}
