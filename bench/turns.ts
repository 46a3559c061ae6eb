/**
 * Turns on the mock model, end to end (POST user.message → `session.status_idle` over SSE):
 *   (a) the latency of a turn on a warm session, and on a session created just before;
 *   (b) turns per second at BENCH_CONCURRENCY sessions, each client posting and waiting for idle, with
 *       the CPU time per turn of each process (the comparison with LangGraph's Agent Server, measured in
 *       the same run, is `npm run bench:peer`);
 *   (c) the MongoDB commands of one turn (first turn of a session, then a warm one), each marked
 *       before or after the POST's answer;
 *   (d) a warm turn with 10 sessions in the database against BENCH_SESSIONS (default 10,000).
 * Uses MONGO_URL/REDIS_URL (defaults: the local services), databases and Redis namespaces of its own,
 * removed when done. Options: BENCH_SAMPLES (default 200), BENCH_SECONDS (default 10),
 * BENCH_CONCURRENCY (default 16), BENCH_SESSIONS (default 10000), BENCH_SIZE_SAMPLES (default 30: turns
 * at each size, before and after the other).
 */
import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { cpuSeconds, cpuSpent, describeDatabase, redisPids, type Database } from "./database.js";
import { conditions, fixed as f, startService, summary, type Service } from "./support.js";
import { MongoOps, type MongoOp } from "./mongo-ops.js";
import { seed, unseed } from "./seed.js";
import { WatchedSession } from "./watched.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LARGE = Number(process.env.BENCH_SESSIONS ?? 10_000);
const SIZE_SAMPLES = Number(process.env.BENCH_SIZE_SAMPLES ?? 30);
const SMALL = 10;
/** Time left after a turn for commands that follow its end (projections written after the answer). */
const SETTLE_MS = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newAgent(service: Service): Promise<string> {
  const rateLimits = { conversationsPerMinute: 300, messagesPerMinute: 1000 };
  const agent = await service.post("/v1/agents", { name: "bench", modelName: "mock/bench", systemPrompt: "You answer.", skills: [], tools: [], rateLimits });
  return String(agent.id);
}

async function warmLatencies(session: WatchedSession, samples: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) out.push((await session.turn()).ms);
  return out;
}

function printLatency(label: string, ms: number[]): void {
  const s = summary(ms);
  console.log(`    ${label.padEnd(34)} p50 ${f(s.p50)} ms   p99 ${f(s.p99)} ms   (${ms.length} turns)`);
}

/** (a) */
async function latency(service: Service, agentId: string, signal: AbortSignal): Promise<void> {
  const warm = await WatchedSession.open(service, agentId, "latency-warm", signal);
  await warmLatencies(warm, 5);
  const warmMs = await warmLatencies(warm, SAMPLES);
  const fresh: number[] = [];
  for (let i = 0; i < Math.min(SAMPLES, 100); i++) {
    const session = await WatchedSession.open(service, agentId, `latency-new-${i}`, signal);
    fresh.push((await session.turn()).ms);
  }
  console.log(`(a) one mock turn: POST user.message → session.status_idle over SSE, turns one after another`);
  printLatency("warm session", warmMs);
  printLatency("new session (created just before)", fresh);
}

/** (b) */
async function throughput(service: Service, agentId: string, database: Database, signal: AbortSignal): Promise<void> {
  const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => WatchedSession.open(service, agentId, `rate-${i}`, signal)));
  await Promise.all(sessions.map((s) => s.turn()));
  let turns = 0;
  let limited = 0;
  const parts = [{ name: "Redis", pids: await redisPids(service.runtime.core.connections.redis) }, ...database.parts()];
  const partsBefore = parts.map((p) => cpuSeconds(p.pids));
  const cpuBefore = cpuSeconds(database.pids());
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    sessions.map(async (s) => {
      while (performance.now() < deadline) {
        const t = await s.turn();
        if (t.limited) limited++;
        else turns++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const dbCpu = cpuSpent(cpuBefore, cpuSeconds(database.pids()));
  const own = process.cpuUsage(ownBefore);
  // PostgreSQL's backends come and go: those alive at the end are read, each counted from zero if new.
  const partsMs = parts.map((p, i) => ({
    name: p.name,
    ms: (cpuSpent(partsBefore[i]!, cpuSeconds(p.name === "PostgreSQL" ? database.parts().find((d) => d.name === p.name)!.pids : p.pids)) * 1000) / turns,
  }));
  console.log(`(b) mock turns per second, ${CONCURRENCY} concurrent sessions (each client: post, wait for idle), ${SECONDS} s`);
  console.log(`    service        ${f(turns / elapsed, 8, 1)} turns/s${limited ? `   (${limited} posts hit the message allowance)` : ""}`);
  console.log(
    `    CPU per turn   ${f((own.user + own.system) / 1000 / turns)} ms this process (client, API, worker)   ${database.pids().length ? `${f((dbCpu * 1000) / turns)} ms database (${database.name})` : "database not on this machine"}`,
  );
  const ownMs = (own.user + own.system) / 1000 / turns;
  const split = partsMs.map((p) => `${p.name} ${f(p.ms, 0)}`).join("   ");
  console.log(`    CPU per turn by process (ms): this process ${f(ownMs, 0)}   ${split}   all ${f(ownMs + partsMs.reduce((a, p) => a + p.ms, 0), 0)}`);
  console.log("    against LangGraph's Agent Server, measured in the same run: npm run bench:peer");
}

function printOps(label: string, ops: MongoOp[], answeredAt: number): void {
  const before = ops.filter((o) => o.startedAt < answeredAt);
  console.log(`    ${label}: ${ops.length} commands, ${before.length} started before the POST's answer arrived`);
  for (const op of ops) {
    const when = op.startedAt < answeredAt ? "before" : "after ";
    console.log(`      ${when}  ${op.ms === undefined ? "       ?" : f(op.ms, 8, 0)} ms  ${op.name} ${op.collection} ${op.shape}`);
  }
}

/** One turn's MongoDB commands, from the POST to a moment after its end. */
async function turnOps(session: WatchedSession, ops: MongoOps): Promise<{ list: MongoOp[]; answeredAt: number }> {
  ops.take();
  const { answeredAt } = await session.turn();
  await sleep(SETTLE_MS);
  return { list: ops.take(), answeredAt };
}

/** (c) */
async function commands(service: Service, agentId: string, ops: MongoOps, signal: AbortSignal): Promise<void> {
  const session = await WatchedSession.open(service, agentId, "commands", signal);
  const first = await turnOps(session, ops);
  await session.turn();
  const warm = await turnOps(session, ops);
  console.log(`(c) MongoDB commands of one turn (command monitoring on the service's client; values shown as their types;`);
  console.log(`    the status projector's writes start at the commit, beside the answer, which does not wait for them)`);
  printOps("first turn of a new session", first.list, first.answeredAt);
  printOps("warm turn", warm.list, warm.answeredAt);
}

/** (d) */
async function databaseSize(signal: AbortSignal): Promise<void> {
  const service = await startService("turns-size", {}, { monitorCommands: true });
  const ops = new MongoOps(service.runtime.core.connections.mongo.client);
  try {
    const agentId = await newAgent(service);
    const session = await WatchedSession.open(service, agentId, "size", signal);
    for (let i = 1; i < SMALL; i++) await service.post("/v1/sessions", { agentId, subjectId: `size-${i}` });
    await warmLatencies(session, 5);
    const { db } = service.runtime.core.connections.mongo;
    // In the order small, large, large, small: whatever drifts over the run (the session's growing
    // history, the machine's load) then falls on both sizes alike.
    const small = await warmLatencies(session, SIZE_SAMPLES);
    const orgs = await seed(db, service.runtime.core.stores.agents, service.run, LARGE - SMALL);
    await warmLatencies(session, 2);
    const largeOps = await turnOps(session, ops);
    const large = await warmLatencies(session, 2 * SIZE_SAMPLES);
    await unseed(db, orgs);
    await warmLatencies(session, 2);
    small.push(...(await warmLatencies(session, SIZE_SAMPLES)));
    const a = summary(small);
    const b = summary(large);
    console.log(
      `(d) warm turn by database size (${2 * SIZE_SAMPLES} turns each, in the order small, large, small; extra sessions inserted in bulk over 20 organizations, 100 agents)`,
    );
    printLatency(`${SMALL} sessions`, small);
    printLatency(`${LARGE.toLocaleString("en")} sessions`, large);
    console.log(`    ratio          p50 ${f(b.p50 / a.p50)}x   p99 ${f(b.p99 / a.p99)}x   (target ≤ 1.2x)`);
    printOps(`warm turn at ${LARGE.toLocaleString("en")} sessions`, largeOps.list, largeOps.answeredAt);
  } finally {
    await service.close();
  }
}

async function main(): Promise<void> {
  const service = await startService("turns", {}, { monitorCommands: true });
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // one listener per open stream
  try {
    const ops = new MongoOps(service.runtime.core.connections.mongo.client);
    const database = await describeDatabase(service.runtime.core.connections.mongo.db);
    console.log(await conditions());
    console.log("the benchmark client, the API and a worker run in one Node process");
    const agentId = await newAgent(service);
    await latency(service, agentId, abort.signal);
    await throughput(service, agentId, database, abort.signal);
    await commands(service, agentId, ops, abort.signal);
  } finally {
    abort.abort();
    await service.close();
  }
  const sizeAbort = new AbortController();
  setMaxListeners(0, sizeAbort.signal);
  try {
    await databaseSize(sizeAbort.signal);
  } finally {
    sizeAbort.abort();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
