/**
 * One side of `tracing.ts`, in a process of its own (tracing is started once per process, from the
 * environment it was given): the service in this process, a warm session on the mock model, and
 * BENCH_SAMPLES turns one after another, each timed by the client from the POST to its 202 (the send
 * path) and to `session.status_idle` over SSE (the turn), with the process's CPU time per turn; the
 * baseline (Redis's raw XADD → blocked XREAD round trip) is taken in alternating rounds beside them.
 * Prints one JSON line.
 */
import { performance } from "node:perf_hooks";
import { startTracing } from "../src/telemetry/tracing-setup.js";
import { baselineRoundTrip } from "./baselines.js";
import { startService } from "./support.js";
import { WatchedSession } from "./watched.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const ROUNDS = 5;

async function main(): Promise<void> {
  const tracing = startTracing(process.env, "all");
  const service = await startService("bench-tracing");
  const signal = new AbortController();
  const rateLimits = { conversationsPerMinute: 300, messagesPerMinute: 1000 };
  const agent = await service.post("/v1/agents", { name: "bench", modelName: "mock/bench", systemPrompt: "You answer.", skills: [], tools: [], rateLimits });
  const session = await WatchedSession.open(service, String(agent.id), "tracing", signal.signal);
  for (let i = 0; i < 10; i++) await session.turn();
  const send: number[] = [];
  const turn: number[] = [];
  const baseline: number[] = [];
  let cpuMicros = 0;
  const perRound = Math.ceil(SAMPLES / ROUNDS);
  for (let done = 0; done < SAMPLES; done += perRound) {
    const n = Math.min(perRound, SAMPLES - done);
    const cpu = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const timing = await session.turn();
      send.push(timing.answeredAt - t0);
      turn.push(timing.ms);
    }
    const used = process.cpuUsage(cpu);
    cpuMicros += used.user + used.system;
    baseline.push(...(await baselineRoundTrip(n)));
  }
  signal.abort();
  await service.close();
  await tracing?.shutdown();
  process.stdout.write(JSON.stringify({ send, turn, baseline, cpuMsPerTurn: cpuMicros / 1000 / SAMPLES }) + "\n");
  process.exit(0);
}

void main();
