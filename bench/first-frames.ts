/**
 * `bench` (a): POST user.message → its first SSE frame on each service shape given, beside the raw
 * XADD → blocked XREAD round trip and a minimal relay (`baselines.ts`), in alternating rounds; the client
 * is raw TCP on a thread of its own (`first-frame-client.ts`). For each shape: this process's garbage
 * collections during its samples, which of its slowest samples one overlapped, and how long this
 * process's thread ran and waited for a core in each, and the client's and Redis's threads waited for
 * one (Linux's `schedstat`).
 */
import { constants, performance, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { Redis } from "ioredis";
import { baselineRoundTrip, relayFloor } from "./baselines.js";
import { redisPids } from "./database.js";
import type { FirstFrameOptions, Sample } from "./first-frame-client.js";
import { fixed, redisUrl, summary, type Endpoint } from "./support.js";
import { inThread } from "./threads.js";

export const LATENCY_ROUNDS = 5;

/** Runs the raw-TCP client of `first-frame-client.ts` on a thread of its own; its samples. */
const timedByClient = (options: FirstFrameOptions): Promise<Sample[]> => inThread(new URL("./first-frame-client.js", import.meta.url), options);

/** Whether two spans of the client's clock overlap. */
const overlap = (a: Sample, b: Sample) => a.start < b.start + b.ms && b.start < a.start + a.ms;

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

/** A service (a) samples: where it answers, and an agent of its own there. */
export interface FrameTarget {
  service: Endpoint;
  agentId: string;
  /**
   * Post a `user.steer` instead of a `user.message`: appended to an idle session it starts no turn, so its
   * samples time the send path alone, as the relay's do, and show how much of a message's figure is the turn.
   */
  steer?: boolean;
}

/**
 * (a) POST user.message → its first SSE frame, one prompt at a time, each turn finished before the next,
 * on each target; and the baselines, the raw round trip and the minimal relay. All are taken in
 * alternating rounds, so each is sampled across the same stretch of the run (this machine's calm comes
 * and goes).
 */
export async function firstFrames(
  targets: FrameTarget[],
  samplesInAll: number,
): Promise<{ frames: Sample[][]; raw: number[]; relayed: number[]; collections: Collections[] }> {
  const message = JSON.stringify({ events: [{ type: "user.message", content: [{ type: "text", text: "sample #N#" }] }] });
  const steer = JSON.stringify({ events: [{ type: "user.steer", message: "sample #N#" }] });
  // A session, of a subject of its own, for each round: one subject's allowance (1,000 messages a minute) never binds.
  const sessionPath = async ({ service, agentId, steer }: FrameTarget, round: number) =>
    `${service.base}/v1/sessions/${String((await service.post("/v1/sessions", { agentId, subjectId: `latency-${steer ? "steer-" : ""}${round}` })).id)}/events`;
  const relay = await relayFloor();
  const redis = new Redis(redisUrl);
  const [redisPid] = await redisPids(redis);
  redis.disconnect();
  const frames: Sample[][] = targets.map(() => []);
  const collections: Collections[] = targets.map(() => ({ young: [], full: [] }));
  const raw: number[] = [];
  const relayed: number[] = [];
  const perRound = Math.ceil(samplesInAll / LATENCY_ROUNDS);
  for (let first = 0; first < samplesInAll; first += perRound) {
    const samples = Math.min(perRound, samplesInAll - first);
    for (const [i, target] of targets.entries()) {
      const { service } = target;
      const path = await sessionPath(target, first / perRound);
      const shape = target.steer ? { body: steer, startsTurn: false } : { body: message };
      frames[i]!.push(
        ...(await collecting(collections[i]!, () =>
          timedByClient({ postUrl: path, streamUrl: `${path}/stream`, key: service.key, samples, ...shape, first, mainThreadWaits: true, redisPid }),
        )),
      );
    }
    raw.push(...(await baselineRoundTrip(samples)));
    const floor = await timedByClient({ postUrl: relay.postUrl, streamUrl: relay.streamUrl, key: "none", samples, body: message, first, startsTurn: false });
    relayed.push(...floor.map((s) => s.ms));
  }
  await relay.close();
  return { frames, raw, relayed, collections };
}

type Percentiles = ReturnType<typeof summary>;

/** (a) for one service shape: its percentiles beside the baselines', and what its slowest samples overlapped. */
export function printFrames(label: string, frames: Sample[], collections: Collections, raw: Percentiles, relay: Percentiles): void {
  const a = summary(frames.map((s) => s.ms));
  console.log(`    ${label}`);
  console.log(`      p50 ${fixed(a.p50)} ms   p99 ${fixed(a.p99)} ms`);
  console.log(
    `      ÷ raw p50 ${fixed(a.p50 / raw.p50, 0, 1)}x, p99 ${fixed(a.p99 / raw.p99, 0, 1)}x (target: p99 ≤ 3x);  ÷ relay p50 ${fixed(a.p50 / relay.p50, 0, 1)}x, p99 ${fixed(a.p99 / relay.p99, 0, 1)}x (target: p99 ≤ 2x)`,
  );
  const pauses = (all: Sample[]) =>
    `${all.length} (${all.reduce((s, p) => s + p.ms, 0).toFixed(0)} ms in all, longest ${Math.max(0, ...all.map((p) => p.ms)).toFixed(1)} ms)`;
  console.log(`      collections  young ${pauses(collections.young)}, full ${pauses(collections.full)}   (this process's, during its samples)`);
  const tail = frames.filter((s) => s.ms >= a.p99).sort((x, y) => y.ms - x.ms);
  const paused = tail.filter((s) => [...collections.young, ...collections.full].some((p) => overlap(s, p)));
  const waits = !frames.some((s) => Number.isNaN(s.waited));
  const redisWaited = (s: Sample) => (s.redisWaited === undefined ? "" : `; Redis waited ${s.redisWaited.toFixed(1)}`);
  const tailSample = (s: Sample) =>
    `${s.ms.toFixed(1)} ms${waits ? ` (this thread ran ${s.ran!.toFixed(1)}, waited ${s.waited!.toFixed(1)} for a core; client waited ${s.clientWaited!.toFixed(1)}${redisWaited(s)})` : ""}`;
  console.log(`      tail         ${paused.length} of the ${tail.length} samples at or above p99 overlapped a collection: ${tail.map(tailSample).join(", ")}`);
  const median = (of: (s: Sample) => number) => fixed(summary(frames.map(of)).p50, 0);
  if (waits) {
    // A sample waited on the machine when any thread it needs was kept from a core for 1 ms or more.
    const crowded = tail.filter((s) => Math.max(s.waited!, s.clientWaited!, s.redisWaited ?? 0) >= 1).length;
    console.log(
      `                   of those, ${crowded} waited ≥ 1 ms for a core (this thread, the client${tail.some((s) => s.redisWaited !== undefined) ? " or Redis" : ""})`,
    );
    console.log(
      `                   a sample's p50: this process's thread ran ${median((s) => s.ran!)} ms, waited ${median((s) => s.waited!)} ms for a core; the client's waited ${median((s) => s.clientWaited!)} ms${frames.some((s) => s.redisWaited !== undefined) ? `; Redis's ${median((s) => s.redisWaited!)} ms` : ""}`,
    );
  } else console.log("                   (waits for a core not measured: Linux's schedstat is not here)");
}
