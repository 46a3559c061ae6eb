/**
 * What a fork costs against the length of the history it copies: times `POST /v1/sessions/{id}/fork`
 * (the whole history, one script per page of copied events) on sessions of BENCH_SMALL_EVENTS (default
 * 1,000) and BENCH_LARGE_EVENTS (default 100,000) events, beside the same run's baseline: the same
 * entries copied by plain XRANGE pages and pipelined XADDs to a scratch stream (no new ids, no
 * renaming, no checks, no HTTP). Each figure is the median of BENCH_FORKS runs (default 5).
 *
 * The logs are written fast through the transition function (`logs.ts`). Uses MONGO_URL/REDIS_URL like
 * the tests, its own database and Redis namespace, removed when done.
 */
import { performance } from "node:perf_hooks";
import { fill } from "./logs.js";
import { conditions, startService, summary, type Service } from "./support.js";

const SMALL = Number(process.env.BENCH_SMALL_EVENTS ?? 1_000);
const LARGE = Number(process.env.BENCH_LARGE_EVENTS ?? 100_000);
const FORKS = Number(process.env.BENCH_FORKS ?? 5);
/** Entries the baseline reads and writes at a time, as the fork's pages. */
const PAGE = 1000;

/** The baseline: the log's entries copied to a scratch stream a page at a time, as they are. */
async function rawCopy(service: Service, sessionId: string, to: string): Promise<number> {
  const { redis, keys } = service.runtime.core.connections;
  const t0 = performance.now();
  for (let after = "0-0"; ;) {
    const entries = await redis.xrange(keys.sessionLog(sessionId), `(${after}`, "+", "COUNT", PAGE);
    if (entries.length === 0) break;
    const pipeline = redis.pipeline();
    for (const [id, fields] of entries) pipeline.xadd(to, id, ...fields);
    await pipeline.exec();
    after = entries.at(-1)![0];
  }
  const ms = performance.now() - t0;
  await redis.del(to);
  return ms;
}

async function timedFork(service: Service, sessionId: string): Promise<number> {
  const t0 = performance.now();
  const forked = await service.post(`/v1/sessions/${sessionId}/fork`, {});
  const ms = performance.now() - t0;
  await fetch(`${service.base}/v1/sessions/${String(forked.id)}`, { method: "DELETE", headers: { "x-api-key": service.key } });
  return ms;
}

async function main(): Promise<void> {
  const service = await startService("bench-fork");
  try {
    const agent = await service.post("/v1/agents", {
      name: "bench",
      modelName: "mock/bench",
      systemPrompt: "",
      skills: [],
      tools: [],
      rateLimits: { conversationsPerMinute: 300 },
    });
    const rows: { events: number; fork: number[]; raw: number[] }[] = [];
    for (const events of [SMALL, LARGE]) {
      const session = await service.post("/v1/sessions", { agentId: agent.id, subjectId: `s-${events}` });
      const id = String(session.id);
      const t0 = performance.now();
      await fill(service, id, events);
      console.log(`filled a session with ${events} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const row = { events, fork: [] as number[], raw: [] as number[] };
      // Alternating, so that noise from the shared machine falls on both alike.
      for (let i = 0; i < FORKS; i++) {
        row.fork.push(await timedFork(service, id));
        row.raw.push(await rawCopy(service, id, `${service.run}:scratch`));
      }
      rows.push(row);
    }
    const f = (n: number) => n.toFixed(1).padStart(9);
    console.log(`${await conditions()}; the machine is shared with other work, so timings are noisy`);
    console.log(`fork of the whole history (POST …/fork → 201), median of ${FORKS}, beside a raw XRANGE + pipelined XADD copy of the same entries`);
    for (const { events, fork, raw } of rows) {
      const a = summary(fork).p50;
      const b = summary(raw).p50;
      console.log(`  ${String(events).padStart(7)} events   fork ${f(a)} ms   raw copy ${f(b)} ms   ratio ${(a / b).toFixed(2)}x`);
    }
    const [small, large] = rows.map((r) => summary(r.fork).p50 / r.events);
    console.log(`  fork time per event, large/small: ${(large! / small!).toFixed(2)}x`);
  } finally {
    await service.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
