/**
 * Takeover after a worker is killed mid-turn: the API in this process, worker processes
 * (`node dist/src/main.js`, ROLE=worker) on the same namespace. Each of TAKEOVER_KILLS rounds starts a
 * spare worker, begins a slow turn on the running one, SIGKILLs the worker holding it, and times from
 * the kill to the turn's next attempt being taken (its state's `turn.attempts` becoming 2), beside the
 * claim settings in force (LOCK_TTL_MS, CLAIM_IDLE_MS, SWEEP_INTERVAL_MS: the service's defaults unless set).
 */
import { Redis } from "ioredis";
import { loadConfig } from "../src/config.js";
import { ServiceProcess } from "./service-process.js";
import { conditions, fixed, mongoBase, redisUrl, startService, summary, type Service } from "./support.js";

const KILLS = Number(process.env.TAKEOVER_KILLS ?? 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function attempts(redis: Redis, service: Service, sessionId: string): Promise<number> {
  const turn = await redis.hget(`${service.run}:{${sessionId}}:state`, "turn");
  return turn ? (JSON.parse(turn) as { attempts: number }).attempts : 0;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function main() {
  console.log(await conditions());
  const settings = loadConfig({ ...process.env, MONGO_URL: mongoBase, REDIS_URL: redisUrl });
  console.log(
    `settings: LOCK_TTL_MS ${settings.lockTtlMs}, CLAIM_IDLE_MS ${settings.claimIdleMs}, SWEEP_INTERVAL_MS ${settings.sweepIntervalMs}; ${KILLS} kills`,
  );
  const service = await startService("takeover", { ROLE: "api" });
  const redis = new Redis(redisUrl);
  const workers: ServiceProcess[] = [];
  const seconds: number[] = [];
  try {
    const agent = await service.post("/v1/agents", {
      name: "bench",
      modelName: "mock/bench",
      systemPrompt: "You answer.",
      skills: [],
      tools: [],
      rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 },
    });
    workers.push(await ServiceProcess.start(service, "worker"));
    for (let i = 0; i < KILLS; i++) {
      const spare = await ServiceProcess.start(service, "worker");
      workers.push(spare);
      const sessionId = String((await service.post("/v1/sessions", { agentId: agent.id, subjectId: `takeover-${i}` })).id);
      // A turn long enough to be running at the kill and after the takeover.
      await service.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.message", content: [{ type: "text", text: "/slow 20000 survive" }] }] });
      await waitFor(async () => (await attempts(redis, service, sessionId)) === 1, 15_000, "the turn to start");
      const victim = workers.shift()!;
      const killedAt = Date.now();
      victim.kill();
      await waitFor(async () => (await attempts(redis, service, sessionId)) >= 2, 120_000, "the takeover");
      seconds.push((Date.now() - killedAt) / 1000);
      console.log(`  kill ${i + 1}: taken over after ${fixed(seconds.at(-1)!, 6)} s`);
    }
    const s = summary(seconds);
    console.log(
      `takeover  kill → turn taken again by another worker: p50 ${fixed(s.p50, 6)} s  p99 ${fixed(s.p99, 6)} s  max ${fixed(Math.max(...seconds), 6)} s  (n=${seconds.length}; target p99 ≤ 5 s)`,
    );
  } finally {
    for (const w of workers) w.kill();
    redis.disconnect();
    await service.close();
  }
}

await main();
