/**
 * The send path, each figure beside a baseline measured in the same run:
 *   (a) latency from POST user.message to its first SSE frame (`first-frames.ts`), on the API and worker
 *       in this process and on the API here with its worker in a process of its own, and of a user.steer,
 *       which starts no turn (the send path alone, as the relay's samples are), vs the raw XADD →
 *       blocked XREAD round trip and vs a minimal relay (the least any HTTP service over Redis Streams
 *       does: `baselines.ts`), in alternating rounds, with what the slowest samples overlapped;
 *   (b) sends per second, one event a request, vs a trivial Koa route answering the same requests, in
 *       alternating rounds after a warm-up of each (the ratio is the median of the rounds' ratios, so a
 *       drift of the shared machine during the run weighs on both sides alike);
 *   (c) events per second in batches, vs pipelined XADD at the same concurrency and batch;
 *   (d) concurrent writers to one session: every send served (no 503).
 * Uses MONGO_URL/REDIS_URL (defaults: the local services), its own database and Redis namespace, and
 * removes both when done. Options: BENCH_SAMPLES (default 1500), BENCH_SECONDS (default 10),
 * BENCH_CONCURRENCY (default 16), BENCH_SEND_CONCURRENCY (default 32), BENCH_BATCH (default 10),
 * BENCH_SEND_ROUNDS (default 5) and BENCH_SEND_SECONDS (each round's, default 4).
 */
import { performance } from "node:perf_hooks";
import { baselineAppendRate, trivialKoa } from "./baselines.js";
import { firstFrames, LATENCY_ROUNDS, printFrames } from "./first-frames.js";
import type { FirstFrameOptions, Sample } from "./first-frame-client.js";
import { loadFromThread } from "./load-client.js";
import { ServiceProcess } from "./service-process.js";
import { conditions, fixed, rate, startService, summary, type Service } from "./support.js";
import { inThread } from "./threads.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SEND_CONCURRENCY = Number(process.env.BENCH_SEND_CONCURRENCY ?? 32);
const BATCH = Number(process.env.BENCH_BATCH ?? 10);
const SEND_ROUNDS = Number(process.env.BENCH_SEND_ROUNDS ?? 5);
const SEND_SECONDS = Number(process.env.BENCH_SEND_SECONDS ?? 4);
const WARM_UP_SECONDS = 2;
const WRITERS = 32;
const RATE_LIMITS = { conversationsPerMinute: 300, messagesPerMinute: 1000 };

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

const send = async (service: Service, sessionId: string, body: string) => {
  const res = await fetch(`${service.base}/v1/sessions/${sessionId}/events`, {
    method: "POST",
    headers: { "x-api-key": service.key, "content-type": "application/json" },
    body,
  });
  await res.arrayBuffer();
  return res.status;
};

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
    rateLimits: RATE_LIMITS,
  });
  const agentId = String(agent.id);

  // (a) also on the service as API pods and workers run apart: the API in this process, a worker in its own.
  const api = await startService("bench-api", { ROLE: "api" });
  const worker = await ServiceProcess.start(api, "worker");
  const apiAgent = await api.post("/v1/agents", { name: "bench", modelName: "mock/bench", systemPrompt: "", skills: [], tools: [], rateLimits: RATE_LIMITS });
  const {
    frames: [frames, apartFrames, steerFrames],
    raw: roundTrips,
    relayed,
    collections: [collections, apartCollections, steerCollections],
  } = await firstFrames(
    [
      { service, agentId },
      { service: api, agentId: String(apiAgent.id) },
      { service, agentId, steer: true },
    ],
    SAMPLES,
  );
  await worker.close();
  await api.close();

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

  const b = summary(roundTrips);
  const k = summary(koaLatencies);
  const f = summary(relayed);
  const show = (m: Map<number, number>) => [...m].map(([s, n]) => `${n} × ${s}`).join(", ");
  console.log(await conditions());
  console.log(
    `(a) POST user.message → first SSE frame, ${SAMPLES} samples, in ${LATENCY_ROUNDS} rounds alternating with the raw round trip's and the minimal relay's`,
  );
  console.log(`    raw Redis      p50 ${fixed(b.p50)} ms   p99 ${fixed(b.p99)} ms   (XADD → blocked XREAD)`);
  console.log(
    `    minimal relay  p50 ${fixed(f.p50)} ms   p99 ${fixed(f.p99)} ms   (POST → XADD, SSE ← blocked XREAD, same Koa, client and rounds; this process)`,
  );
  console.log(`                   relay / raw p99 ${fixed(f.p99 / b.p99, 0, 1)}x`);
  console.log(`    trivial Koa    p50 ${fixed(k.p50)} ms   p99 ${fixed(k.p99)} ms   (one POST answered, same client: HTTP alone)`);
  printFrames("service, API and worker in this process", frames, collections, b, f);
  printFrames("service, the API in this process, its worker in a process of its own (ROLE=worker)", apartFrames, apartCollections, b, f);
  printFrames("service, a user.steer to an idle session (no turn: the send path alone), API and worker in this process", steerFrames, steerCollections, b, f);
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
