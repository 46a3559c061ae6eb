/**
 * Benchmarks, each beside a raw Redis baseline measured in the same run:
 *   (a) latency from POST user.message to its first SSE frame, vs XADD → blocked XREAD round trip;
 *   (b) inbound events per second one API process appends, vs XADD from one client at the same
 *       concurrency.
 * Uses MONGO_URL/REDIS_URL (defaults: the local services), its own database and Redis namespace,
 * and removes both when done. Options: BENCH_SAMPLES (default 300), BENCH_SECONDS (default 10),
 * BENCH_CONCURRENCY (default 16), BENCH_BATCH (events per request, default 10).
 */
import type { AddressInfo } from "node:net";
import { cpus, totalmem } from "node:os";
import { performance } from "node:perf_hooks";
import { Redis } from "ioredis";
import { MongoClient } from "mongodb";
import { loadConfig } from "../src/config.js";
import { createApp } from "../src/http/app.js";
import { createHttpServer } from "../src/http/server.js";
import { createLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BATCH = Number(process.env.BENCH_BATCH ?? 10);
const mongoBase = process.env.MONGO_URL ?? "mongodb://127.0.0.1:27017/agent_sessions";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const run = `bench-${Date.now().toString(36)}`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(ms: number[]): { p50: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** Reads SSE frames from a fetch body and calls `onFrame` with each event type. */
async function sse(url: string, key: string, onFrame: (event: string, data: string) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { headers: { "x-api-key": key }, signal });
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) onFrame(event, data);
        }
      }
    } catch {
      /* aborted at the end */
    }
  })();
}

async function baselineRoundTrip(): Promise<number[]> {
  const writer = new Redis(redisUrl);
  const reader = new Redis(redisUrl);
  const key = `${run}:baseline:rtt`;
  const out: number[] = [];
  let last = "0-0";
  for (let i = 0; i < SAMPLES; i++) {
    const read = reader.xread("BLOCK", 5000, "STREAMS", key, last === "0-0" ? "$" : last);
    await new Promise((r) => setImmediate(r));
    const t0 = performance.now();
    await writer.xadd(key, "*", "n", String(i));
    const reply = (await read) as [string, [string, string[]][]][] | null;
    out.push(performance.now() - t0);
    last = reply?.[0]?.[1].at(-1)?.[0] ?? last;
  }
  await writer.del(key);
  writer.disconnect();
  reader.disconnect();
  return out;
}

async function baselineAppendRate(): Promise<number> {
  const redis = new Redis(redisUrl);
  const key = `${run}:baseline:rate`;
  let events = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const pipeline = redis.pipeline();
        for (let i = 0; i < BATCH; i++) pipeline.xadd(key, "*", "env", "x".repeat(200));
        await pipeline.exec();
        events += BATCH;
      }
    }),
  );
  const rate = events / ((performance.now() - started) / 1000);
  await redis.del(key);
  redis.disconnect();
  return rate;
}

async function main(): Promise<void> {
  const mongoUrl = new URL(mongoBase);
  mongoUrl.pathname = `/${run.replace(/-/g, "_")}`;
  const config = loadConfig({ ...process.env, MONGO_URL: mongoUrl.toString(), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: run, LOG_LEVEL: "error", PORT: "0" });
  const runtime = await createRuntime(config, createLogger("error"));
  await runtime.startWorker(true);
  const server = createHttpServer(createApp(runtime.components)).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { organizations } = runtime.components;
  const { key } = await organizations.createKey(await organizations.ensureOrganization(run), 10_000_000);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(base + path, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${path} → ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const agent = await post("/v1/agents", { name: "bench", modelName: "mock/bench", systemPrompt: "", skills: [], tools: [], rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 } });
  const abort = new AbortController();

  // (a) POST user.message → its first SSE frame.
  const session = await post("/v1/sessions", { agentId: agent.id, subjectId: "latency" });
  let onFrame: (event: string) => void = () => undefined;
  await sse(`${base}/v1/sessions/${String(session.id)}/events/stream`, key, (event) => onFrame(event), abort.signal);
  await new Promise((r) => setTimeout(r, 200));
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const firstFrame = new Promise<number>((resolve) => (onFrame = (event) => event === "user.message" && resolve(performance.now())));
    const idle = new Promise<void>((resolve) => {
      const previous = onFrame;
      onFrame = (event) => {
        previous(event);
        if (event === "session.status_idle") resolve();
      };
    });
    const t0 = performance.now();
    await post(`/v1/sessions/${String(session.id)}/events`, { events: [{ type: "user.message", content: [{ type: "text", text: `sample ${i}` }] }] });
    latencies.push((await firstFrame) - t0);
    await idle;
  }
  const roundTrips = await baselineRoundTrip();

  // (b) Inbound events per second: batches of steers (appended, no turn) over sessions of distinct
  // subjects, enough of them that the per-subject allowance (1,000 a minute) never binds.
  const sessionCount = Math.max(CONCURRENCY * 4, Math.ceil((SECONDS * 30_000) / 1_000));
  const sessions: Record<string, unknown>[] = [];
  for (let i = 0; i < sessionCount; i += 50) {
    const chunk = Array.from({ length: Math.min(50, sessionCount - i) }, (_, j) => post("/v1/sessions", { agentId: agent.id, subjectId: `rate-${i + j}` }));
    sessions.push(...(await Promise.all(chunk)));
  }
  const batch = { events: Array.from({ length: BATCH }, (_, i) => ({ type: "user.steer", message: `steer ${i} ${"x".repeat(100)}` })) };
  let appended = 0;
  let limited = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      let n = 0;
      while (performance.now() < deadline) {
        const target = sessions[(worker + CONCURRENCY * n++) % sessions.length]!;
        const res = await fetch(`${base}/v1/sessions/${String(target.id)}/events`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(batch) });
        await res.arrayBuffer();
        if (res.status === 202) appended += BATCH;
        else if (res.status === 429) limited++;
        else throw new Error(`append → ${res.status}`);
      }
    }),
  );
  const serviceRate = appended / ((performance.now() - started) / 1000);
  const rawRate = await baselineAppendRate();

  abort.abort();
  server.closeAllConnections();
  server.close();
  await runtime.close();
  const mongo = new MongoClient(mongoUrl.toString());
  await mongo.connect();
  await mongo.db().dropDatabase();
  await mongo.close();
  const redis = new Redis(redisUrl);
  for (let cursor = "0"; ; ) {
    const [next, found] = await redis.scan(cursor, "MATCH", `${run}:*`, "COUNT", 1000);
    if (found.length) await redis.del(...found);
    if ((cursor = next) === "0") break;
  }
  redis.disconnect();

  const a = summary(latencies);
  const b = summary(roundTrips);
  const f = (n: number) => n.toFixed(2).padStart(8);
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}`);
  console.log(`(a) POST user.message → first SSE frame, ${SAMPLES} samples`);
  console.log(`    service        p50 ${f(a.p50)} ms   p99 ${f(a.p99)} ms`);
  console.log(`    raw Redis      p50 ${f(b.p50)} ms   p99 ${f(b.p99)} ms   (XADD → blocked XREAD)`);
  console.log(`    ratio          p50 ${(a.p50 / b.p50).toFixed(1).padStart(8)}x   p99 ${(a.p99 / b.p99).toFixed(1).padStart(8)}x`);
  console.log(`(b) inbound events appended per second, ${CONCURRENCY} concurrent clients, ${BATCH} events per request, ${SECONDS} s`);
  console.log(`    service        ${serviceRate.toFixed(0).padStart(8)} events/s${limited ? `   (${limited} requests hit the allowance)` : ""}`);
  console.log(`    raw Redis      ${rawRate.toFixed(0).padStart(8)} events/s   (pipelined XADD, same concurrency and batch)`);
  console.log(`    ratio          ${(serviceRate / rawRate).toFixed(3).padStart(8)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
