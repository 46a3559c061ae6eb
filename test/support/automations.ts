/** Automations under a clock the test moves by hand, and schedulers the test runs when it has moved it. */
import { Scheduler } from "../../src/automations/scheduler.js";
import type { Clock } from "../../src/clock.js";
import { dropDatabase, env } from "./hooks.js";
import { otherDeployment, startServer, type TestServer } from "./server.js";

export class ManualClock implements Clock {
  constructor(private at: number) {}
  now(): number {
    return this.at;
  }
  set(iso: string): void {
    this.at = Date.parse(iso);
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

export const MINUTE = 60_000;
/** The lease of the test's schedulers' claims. */
export const LEASE_MS = MINUTE;
export const HOUR = 60 * MINUTE;

/**
 * A deployment of its own (Redis namespace and database), so its schedulers see only its automations:
 * the API only (no worker takes the runs' turns) and as many servers as asked, all on one clock.
 */
export async function automationDeployment(name: string, clock: ManualClock, servers = 1): Promise<{ servers: TestServer[]; close(): Promise<void> }> {
  const url = new URL(env.mongoUrl);
  url.pathname = `${url.pathname}_${name}`;
  const settings = { ROLE: "api", REDIS_KEY_PREFIX: otherDeployment(name), MONGO_URL: url.toString() };
  const started: TestServer[] = [];
  for (let i = 0; i < servers; i++) started.push(await startServer(settings, {}, clock));
  return {
    servers: started,
    async close() {
      await Promise.all(started.map((s) => s.close()));
      await dropDatabase(url.toString());
    },
  };
}

/** A scheduler of the server's process (its Redis connection and stores), not started: the test calls `runDue`. */
export function schedulerOf(server: TestServer, clock: Clock, concurrency = 8): Scheduler {
  const s = server.core;
  return new Scheduler(
    { queue: s.redis.automationQueue, occurrences: s.inner.occurrences, store: s.stores.automations, clock, logger: s.process.log },
    { concurrency, repairEveryMs: MINUTE, leaseMs: LEASE_MS },
  );
}

/** The automations path of an agent's subject. */
export const automationsPath = (agentId: string, subjectId: string) => `/v1/agents/${agentId}/users/${encodeURIComponent(subjectId)}/automations`;
