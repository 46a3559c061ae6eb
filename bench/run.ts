/**
 * The send path, each figure beside a baseline measured in the same run:
 *   (a) latency from POST user.message to its first SSE frame, vs the raw XADD → blocked XREAD round trip
 *       and vs a minimal relay (the least any HTTP service over Redis Streams does: `baselines.ts`), in
 *       alternating rounds (the client is raw TCP on a thread of its own, `first-frame-client.ts`),
 *       with the service process's garbage-collection pauses during its samples, and which of its slowest
 *       samples a pause overlapped, how long the service's thread ran and waited for a core in each, and
 *       how long the client's own thread waited for one;
 *   (b) sends per second, one event a request, vs a trivial Koa route answering the same requests, in
 *       alternating rounds after a warm-up of each (the ratio is the median of the rounds' ratios, so a
 *       drift of the shared machine during the run weighs on both sides alike);
 *   (c) events per second in batches, vs pipelined XADD at the same concurrency and batch;
 *   (d) concurrent writers to one session: every send served (no 503).
 * Uses MONGO_URL/REDIS_URL (defaults: the local services), its own database and Redis namespace, and
 * removes both when done. Options: BENCH_SAMPLES (default 300), BENCH_SECONDS (default 10),
 * BENCH_CONCURRENCY (default 16), BENCH_SEND_CONCURRENCY (default 32), BENCH_BATCH (default 10),
 * BENCH_SEND_ROUNDS (default 5) and BENCH_SEND_SECONDS (each round's, default 4).
 */
import { constants, performance, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { baselineAppendRate, baselineRoundTrip, relayFloor, trivialKoa } from "./baselines.js";
import type { FirstFrameOptions, Sample } from "./first-frame-client.js";
import { loadFromThread } from "./load-client.js";
import { conditions, fixed, rate, startService, summary, type Service } from "./support.js";
import { inThread } from "./threads.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SEND_CONCURRENCY = Number(process.env.BENCH_SEND_CONCURRENCY ?? 32);
const BATCH = Number(process.env.BENCH_BATCH ?? 10);
const SEND_ROUNDS = Number(process.env.BENCH_SEND_ROUNDS ?? 5);
const SEND_SECONDS = Number(process.env.BENCH_SEND_SECONDS ?? 4);
const WARM_UP_SECONDS = 2;
const LATENCY_ROUNDS = 5;
const WRITERS = 32;

/** Runs the raw-TCP client of `first-frame-client.ts` on a thread of its own; its samples. */
const timedByClient = (options: FirstFrameOptions): Promise<Sample[]> => inThread(new URL("./first-frame-client.js", import.meta.url), options);

interface SendRounds {
  service: number[];
  koa: number[];
  ratios: number[];
  statuses: Map<number, number>;
}

/**
 * (b) The same load on the service (over `urls`) and on the trivial route, each first warmed up, then in
 * rounds whose order alternates (service first, then Koa first, …), so neither side always runs on a
 * machine warmer or busier than the other's.
 */
async function sendRounds(urls: string[], koaUrl: string, headers: Record<string, string>, body: string): Promise<SendRounds> {
  const statuses = new Map<number, number>();
  const onService = async (seconds: number) => {
    const result = await loadFromThread({ urls, headers, body, connections: SEND_CONCURRENCY, seconds });
    for (const [status, n] of Object.entries(result.statuses)) statuses.set(Number(status), (statuses.get(Number(status)) ?? 0) + n);
    return result.rate;
  };
  const onKoa = async (seconds: number) =>
    (await loadFromThread({ urls: [koaUrl], headers: { "content-type": "application/json" }, body, connections: SEND_CONCURRENCY, seconds })).rate;
  await onService(WARM_UP_SECONDS);
  await onKoa(WARM_UP_SECONDS);
  const rounds: SendRounds = { service: [], koa: [], ratios: [], statuses };
  for (let round = 0; round < SEND_ROUNDS; round++) {
    const service = round % 2 === 0 ? await onService(SEND_SECONDS) : 0;
    const koa = await onKoa(SEND_SECONDS);
    const serviceRate = round % 2 === 0 ? service : await onService(SEND_SECONDS);
    rounds.service.push(serviceRate);
    rounds.koa.push(koa);
    rounds.ratios.push(serviceRate / koa);
  }
  return rounds;
}

/** Whether two spans of the client's clock overlap. */
const overlap = (a: Sample, b: Sample) => a.start < b.start + b.ms && b.start < a.start + a.ms;

const send = async (service: Service, sessionId: string, body: string) => {
  const res = await fetch(`${service.base}/v1/sessions/${sessionId}/events`, {
    method: "POST",
    headers: { "x-api-key": service.key, "content-type": "application/json" },
    body,
  });
  await res.arrayBuffer();
  return res.status;
};

/** The service process's garbage collections, each as a `Sample` on the client's clock. */
interface Collections {
  young: Sample[];
  full: Sample[];
}

/** Adds this process's (the service's) garbage collections while `work` runs to `into`. */
async function collecting<T>(into: Collections, work: () => Promise<T>): Promise<T> {
  // Entries are timed from this thread's origin; the client's samples by `process.hrtime`.
  const origin = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  // A gc entry's `detail` says its kind; @types/node does not declare it.
  const take = (entries: (PerformanceEntry & { detail?: { kind?: number } | null })[]) => {
    for (const e of entries) {
      const kind = e.detail?.kind;
      const pause = { start: origin + e.startTime, ms: e.duration };
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) into.young.push(pause);
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) into.full.push(pause);
    }
  };
  const observer = new PerformanceObserver((list) => take(list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  try {
    return await work();
  } finally {
    take(observer.takeRecords());
    observer.disconnect();
  }
}

/**
 * (a) POST user.message → its first SSE frame, one prompt at a time, each turn finished before the next;
 * and its baselines, the raw round trip and the minimal relay. All are taken in alternating rounds, so
 * each is sampled across the same stretch of the run (this machine's calm comes and goes).
 */
async function firstFrames(service: Service, agentId: string): Promise<{ frames: Sample[]; raw: number[]; relayed: number[]; collections: Collections }> {
  const session = String((await service.post("/v1/sessions", { agentId, subjectId: "latency" })).id);
  const body = JSON.stringify({ events: [{ type: "user.message", content: [{ type: "text", text: "sample #N#" }] }] });
  const path = `${service.base}/v1/sessions/${session}/events`;
  const relay = await relayFloor();
  const frames: Sample[] = [];
  const raw: number[] = [];
  const relayed: number[] = [];
  const collections: Collections = { young: [], full: [] };
  const perRound = Math.ceil(SAMPLES / LATENCY_ROUNDS);
  for (let first = 0; first < SAMPLES; first += perRound) {
    const samples = Math.min(perRound, SAMPLES - first);
    frames.push(
      ...(await collecting(collections, () =>
        timedByClient({ postUrl: path, streamUrl: `${path}/stream`, key: service.key, samples, body, first, mainThreadWaits: true }),
      )),
    );
    raw.push(...(await baselineRoundTrip(samples)));
    const floor = await timedByClient({ postUrl: relay.postUrl, streamUrl: relay.streamUrl, key: "none", samples, body, first, startsTurn: false });
    relayed.push(...floor.map((s) => s.ms));
  }
  await relay.close();
  return { frames, raw, relayed, collections };
}

/** Sessions of distinct subjects, enough that the per-subject allowance (1,000 a minute) never binds over `seconds` at `perSecond`. */
async function sessionsFor(service: Service, agentId: string, prefix: string, seconds: number, perSecond: number): Promise<string[]> {
  const count = Math.max(SEND_CONCURRENCY * 4, Math.ceil((seconds * perSecond) / 900));
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const chunk = Array.from({ length: Math.min(50, count - i) }, (_, j) => service.post("/v1/sessions", { agentId, subjectId: `${prefix}-${i + j}` }));
    ids.push(...(await Promise.all(chunk)).map((s) => String(s.id)));
  }
  return ids;
}

async function main(): Promise<void> {
  const service = await startService("bench");
  const agent = await service.post("/v1/agents", {
    name: "bench",
    modelName: "mock/bench",
    systemPrompt: "",
    skills: [],
    tools: [],
    rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 },
  });
  const agentId = String(agent.id);

  const { frames, raw: roundTrips, relayed, collections } = await firstFrames(service, agentId);

  // (b) One steer a request (appended, no turn), over sessions of distinct subjects; (a)'s HTTP floor.
  const oneSteer = JSON.stringify({ events: [{ type: "user.steer", message: `steer ${"x".repeat(100)}` }] });
  const sendSeconds = WARM_UP_SECONDS + SEND_ROUNDS * SEND_SECONDS;
  const single = await sessionsFor(service, agentId, "send", sendSeconds, 5_000);
  const koa = await trivialKoa();
  const sends = await sendRounds(
    single.map((id) => `${service.base}/v1/sessions/${id}/events`),
    koa.url,
    { "x-api-key": service.key, "content-type": "application/json" },
    oneSteer,
  );
  const koaLatencies = (await timedByClient({ postUrl: koa.url, key: "none", samples: SAMPLES, body: oneSteer })).map((s) => s.ms);
  koa.close();

  // (c) Batches of steers.
  // Sized for 20,000 events a second, above what this machine appends, so no subject reaches its allowance.
  const batched = await sessionsFor(service, agentId, "batch", SECONDS, 20_000);
  const batch = JSON.stringify({ events: Array.from({ length: BATCH }, (_, i) => ({ type: "user.steer", message: `steer ${i} ${"x".repeat(100)}` })) });
  let limited = 0;
  let served = 0;
  const batchRequests = await rate(CONCURRENCY, SECONDS, async (client, n) => {
    const status = await send(service, batched[(client + CONCURRENCY * n) % batched.length]!, batch);
    if (status === 429) limited++;
    else if (status === 202) served++;
    else throw new Error(`append → ${status}`);
  });
  // `rate` counts every request; the events appended are those of the ones served.
  const appended = (batchRequests * served * BATCH) / (served + limited);
  const rawRate = await baselineAppendRate(CONCURRENCY, SECONDS, BATCH);

  // (d) Writers to one session at once: steers and queued prompts beside a running turn.
  const shared = String((await service.post("/v1/sessions", { agentId, subjectId: "shared" })).id);
  await service.post(`/v1/sessions/${shared}/events`, { events: [{ type: "user.message", content: [{ type: "text", text: "/slow 5000 busy" }] }] });
  const contended = new Map<number, number>();
  const writersStarted = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let n = 0; n < 25; n++) {
        const body =
          w % 2 === 0
            ? oneSteer
            : JSON.stringify({ events: [{ type: "user.message", content: [{ type: "text", text: `queued ${w}.${n}` }] }], delivery: "when_idle" });
        const status = await send(service, shared, body);
        contended.set(status, (contended.get(status) ?? 0) + 1);
      }
    }),
  );
  const writersMs = performance.now() - writersStarted;
  await service.close();

  const a = summary(frames.map((s) => s.ms));
  const b = summary(roundTrips);
  const k = summary(koaLatencies);
  const show = (m: Map<number, number>) => [...m].map(([s, n]) => `${n} × ${s}`).join(", ");
  console.log(await conditions());
  console.log(
    `(a) POST user.message → first SSE frame, ${SAMPLES} samples, in ${LATENCY_ROUNDS} rounds alternating with the raw round trip's and the minimal relay's`,
  );
  console.log(`    service        p50 ${fixed(a.p50)} ms   p99 ${fixed(a.p99)} ms`);
  console.log(`    raw Redis      p50 ${fixed(b.p50)} ms   p99 ${fixed(b.p99)} ms   (XADD → blocked XREAD)`);
  console.log(`    ratio          p50 ${fixed(a.p50 / b.p50, 8, 1)}x   p99 ${fixed(a.p99 / b.p99, 8, 1)}x   (target: p99 ≤ 3x)`);
  const f = summary(relayed);
  console.log(`    minimal relay  p50 ${fixed(f.p50)} ms   p99 ${fixed(f.p99)} ms   (POST → XADD, SSE ← blocked XREAD, same Koa, client and rounds)`);
  console.log(
    `                   relay / raw p99 ${fixed(f.p99 / b.p99, 0, 1)}x; service / relay p50 ${fixed(a.p50 / f.p50, 0, 1)}x, p99 ${fixed(a.p99 / f.p99, 0, 1)}x`,
  );
  console.log(`    trivial Koa    p50 ${fixed(k.p50)} ms   p99 ${fixed(k.p99)} ms   (one POST answered, same client: HTTP alone)`);
  const pauses = (all: Sample[]) =>
    `${all.length} (${all.reduce((s, p) => s + p.ms, 0).toFixed(0)} ms in all, longest ${Math.max(0, ...all.map((p) => p.ms)).toFixed(1)} ms)`;
  console.log(`    collections    young ${pauses(collections.young)}, full ${pauses(collections.full)}   (the service's process, during its samples)`);
  const tail = frames.filter((s) => s.ms >= a.p99).sort((x, y) => y.ms - x.ms);
  const paused = tail.filter((s) => [...collections.young, ...collections.full].some((p) => overlap(s, p)));
  const waits = !frames.some((s) => Number.isNaN(s.waited));
  const tailSample = (s: Sample) =>
    `${s.ms.toFixed(1)} ms${waits ? ` (service ran ${s.ran!.toFixed(1)}, waited ${s.waited!.toFixed(1)} for a core; client waited ${s.clientWaited!.toFixed(1)})` : ""}`;
  console.log(`    tail           ${paused.length} of the ${tail.length} samples at or above p99 overlapped a collection: ${tail.map(tailSample).join(", ")}`);
  const median = (of: (s: Sample) => number) => fixed(summary(frames.map(of)).p50, 0);
  if (waits)
    console.log(
      `                   a sample's p50: the service's thread ran ${median((s) => s.ran!)} ms, waited ${median((s) => s.waited!)} ms for a core; the client's waited ${median((s) => s.clientWaited!)} ms`,
    );
  else console.log("                   (waits for a core not measured: Linux's schedstat is not here)");
  const perRound = (rates: number[]) => rates.map((r) => r.toFixed(0)).join(" ");
  console.log(
    `(b) sends per second, one event a request, ${SEND_CONCURRENCY} connections, ${SEND_ROUNDS} rounds of ${SEND_SECONDS} s after ${WARM_UP_SECONDS} s of warm-up each`,
  );
  console.log(
    `    service        ${fixed(summary(sends.service).p50, 8, 0)} requests/s median   (rounds: ${perRound(sends.service)}; ${show(sends.statuses)})`,
  );
  console.log(
    `    trivial Koa    ${fixed(summary(sends.koa).p50, 8, 0)} requests/s median   (rounds: ${perRound(sends.koa)}; one route answering 202, same client)`,
  );
  console.log(
    `    ratio          ${fixed(summary(sends.ratios).p50, 8, 3)} median   (rounds: ${sends.ratios.map((r) => r.toFixed(2)).join(" ")}; target ≥ 0.5)`,
  );
  console.log(`(c) inbound events appended per second, ${CONCURRENCY} connections, ${BATCH} events a request, ${SECONDS} s`);
  console.log(`    service        ${fixed(appended, 8, 0)} events/s${limited ? `   (${limited} requests hit the allowance)` : ""}`);
  console.log(`    raw Redis      ${fixed(rawRate, 8, 0)} events/s   (pipelined XADD, same concurrency and batch)`);
  console.log(`    ratio          ${fixed(appended / rawRate, 8, 3)}`);
  console.log(`(d) ${WRITERS} concurrent writers to one running session, 25 sends each (steers and when_idle prompts)`);
  console.log(`    answers        ${show(contended)} in ${writersMs.toFixed(0)} ms   (target: no 503)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
