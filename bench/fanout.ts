/**
 * Fan-out benchmark: how long one event takes to reach every SSE subscriber of its session, with one
 * subscriber and with many. Each sample is a `user.steer` POSTed to the session; its latency per
 * subscriber runs from the moment the append script is sent to Redis to the moment that subscriber's
 * socket delivers the frame. (Not from the script's reply: the frame often reaches a subscriber before
 * the server's event loop has handled that reply, which would count it as no time at all.) The
 * script's own round trip is printed beside. The subscribers live in a worker
 * thread (`fanout-client.ts`), so client and server have an event loop each, on the same machine.
 *
 * Uses MONGO_URL/REDIS_URL (defaults: the local services), its own database and Redis namespace, and
 * removes both when done. Options: BENCH_SUBSCRIBERS (default 1000), BENCH_SAMPLES (default 500),
 * BENCH_WARMUP (samples not counted, default 20).
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { Worker } from "node:worker_threads";
import { percentile, startService } from "./support.js";
import { MARKER, nowMs, type ClientOptions, type ClientReport } from "./fanout-protocol.js";

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const SAMPLE_TIMEOUT_MS = 60_000;

/** The shell's soft and hard limits on open files, which this process inherited. */
function fileLimits(): { soft: number; hard: number } {
  const read = (flag: string) => Number(execFileSync("sh", ["-c", `ulimit ${flag}`], { encoding: "utf8" }).trim()) || Infinity;
  return { soft: read("-Sn"), hard: read("-Hn") };
}

/** N subscribers in a worker thread; `sample(n)` resolves with when each one received marker n. */
async function openSubscribers(options: ClientOptions) {
  const worker = new Worker(new URL("./fanout-client.js", import.meta.url), { workerData: options });
  const waiting = new Map<number, { resolve: (at: Float64Array) => void; reject: (err: Error) => void }>();
  let opened!: { resolve: () => void; reject: (err: Error) => void };
  const open = new Promise<void>((resolve, reject) => (opened = { resolve, reject }));
  const fail = (err: Error) => [opened, ...waiting.values()].forEach((w) => w.reject(err));
  worker.on("message", (m: ClientReport) => {
    if (m.type === "open") opened.resolve();
    else if (m.type === "sample") waiting.get(m.sample)?.resolve(m.receivedMs);
    else fail(new Error(m.message));
  });
  worker.on("error", fail);
  await open;
  return {
    sample(n: number): Promise<Float64Array> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`sample ${n} did not reach every subscriber`)), SAMPLE_TIMEOUT_MS);
        const settle = () => {
          clearTimeout(timer);
          waiting.delete(n);
        };
        waiting.set(n, { resolve: (at) => (settle(), resolve(at)), reject: (err) => (settle(), reject(err)) });
      });
    },
    async close() {
      worker.postMessage("close");
      await new Promise((r) => worker.once("exit", r));
    },
  };
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const limits = fileLimits();
  // Each subscriber is two descriptors here: the client's socket and the server's.
  const needed = 2 * SUBSCRIBERS + 200;
  if (limits.soft < needed)
    throw new Error(`open files limit ${limits.soft} is below the ${needed} needed; raise it (ulimit -n ${needed}, at most ${limits.hard})`);

  // The API alone: steers start no turn, so no worker is needed.
  // Every subscriber is a stream of the bench's one organization: room for all of them.
  const service = await startService("bench-fanout", { ROLE: "api", SSE_STREAMS_PER_ORGANIZATION: String(SUBSCRIBERS + 10) });
  const { base, key } = service;
  const { appender } = service.runtime.core.redis;

  // When the latest POST's append script was sent, and how long until its reply was handled.
  let appendSent = 0;
  let appendRoundTrip = 0;
  const apply = appender.apply.bind(appender);
  appender.apply = async (...args: Parameters<typeof apply>) => {
    appendSent = nowMs();
    const result = await apply(...args);
    appendRoundTrip = nowMs() - appendSent;
    return result;
  };

  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    for (;;) {
      const res = await fetch(base + path, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      // The message allowance (at most 1,000 a minute per subject) paces long runs.
      if (res.status === 429) await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? 1)));
      else if (res.status >= 300) throw new Error(`${path} → ${res.status} ${JSON.stringify(json)}`);
      else return json;
    }
  };
  const agent = await post("/v1/agents", {
    name: "bench",
    modelName: "mock/bench",
    systemPrompt: "",
    skills: [],
    tools: [],
    rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 },
  });

  const measure = async (subscribers: number) => {
    const session = await post("/v1/sessions", { agentId: agent.id, subjectId: `fanout-${subscribers}` });
    const sessionId = String(session.id);
    const clients = await openSubscribers({ url: `${base}/v1/sessions/${sessionId}/events/stream`, key, subscribers });
    const latencies: number[] = [];
    const roundTrips: number[] = [];
    let cpu = process.cpuUsage();
    for (let n = 0; n < WARMUP + SAMPLES; n++) {
      if (n === WARMUP) cpu = process.cpuUsage();
      const [received] = await Promise.all([
        clients.sample(n),
        post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.steer", message: `${MARKER}${n}#` }] }),
      ]);
      if (n < WARMUP) continue;
      for (const at of received) latencies.push(at - appendSent);
      roundTrips.push(appendRoundTrip);
    }
    // CPU time per sample of this process (server and subscriber threads): the work itself, which the
    // machine's other load disturbs less than it does latency.
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000 / SAMPLES;
    await clients.close();
    latencies.sort((a, b) => a - b);
    roundTrips.sort((a, b) => a - b);
    return {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1]!,
      count: latencies.length,
      script: { p50: percentile(roundTrips, 50), p99: percentile(roundTrips, 99) },
      cpuMs,
    };
  };
  const one = await measure(1);
  const many = await measure(SUBSCRIBERS);

  await service.close();

  const f = (n: number) => n.toFixed(2).padStart(8);
  const line = (label: string, r: typeof one) => {
    console.log(`    ${label.padEnd(16)} p50 ${f(r.p50)} ms   p99 ${f(r.p99)} ms   max ${f(r.max)} ms   (${r.count} deliveries)`);
    console.log(
      `${"".padEnd(21)}append script round trip p50 ${r.script.p50.toFixed(2)} ms, p99 ${r.script.p99.toFixed(2)} ms; CPU time per sample ${r.cpuMs.toFixed(2)} ms (server and subscribers)`,
    );
  };
  const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(" ");
  console.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}; open files limit ${limits.soft} (hard ${limits.hard}); load average ${load(loadBefore)} before, ${load(loadavg())} after`,
  );
  console.log(
    "server and subscribers share this machine: the service on the main thread, the subscribers on a worker thread (raw TCP, byte search), Redis and MongoDB beside them",
  );
  console.log(`one user.steer → its SSE frame at every subscriber of the session, from the append script's call; ${SAMPLES} samples after ${WARMUP} warm-up`);
  line("1 subscriber", one);
  line(`${SUBSCRIBERS} subscribers`, many);
  console.log(`    ratio of p99s    ${(many.p99 / one.p99).toFixed(1)}x   (target: at most 10x)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
