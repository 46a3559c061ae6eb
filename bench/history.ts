/**
 * Does a turn's cost depend on the length of its session's history? Times mock-model turns (POST
 * user.message → `session.status_idle` over SSE) on a session with a short log and one with a long
 * log, and prints p50/p99 of each, their ratio, and the process's memory before and after.
 *
 * The logs are written fast, through the transition function in batches, as the events of finished
 * turns (a user message, `session.status_running`, the agent's answer, `session.status_idle`), so
 * the transcript is as long as the log is. Uses MONGO_URL/REDIS_URL like the tests, its own database
 * and Redis namespace, removed when done. Options: BENCH_SMALL_EVENTS (default 1,000),
 * BENCH_LARGE_EVENTS (default 100,000), BENCH_TURNS (timed turns per session, default 100).
 */
import { performance } from "node:perf_hooks";
import { fill } from "./logs.js";
import { conditions, sse, startService, summary, type Service } from "./support.js";

const SMALL = Number(process.env.BENCH_SMALL_EVENTS ?? 1_000);
const LARGE = Number(process.env.BENCH_LARGE_EVENTS ?? 100_000);
const TURNS = Number(process.env.BENCH_TURNS ?? 100);
interface Watched {
  id: string;
  /** Sends a prompt and resolves with the milliseconds until the turn's `session.status_idle`. */
  turn(text: string): Promise<number>;
}

async function watch(service: Service, sessionId: string, signal: AbortSignal): Promise<Watched> {
  let onIdle: () => void = () => undefined;
  await sse(`${service.base}/v1/sessions/${sessionId}/events/stream`, service.key, (event) => event === "session.status_idle" && onIdle(), signal);
  await new Promise((r) => setTimeout(r, 200)); // the stream is subscribed
  return {
    id: sessionId,
    async turn(text) {
      const idle = new Promise<number>((resolve) => (onIdle = () => resolve(performance.now())));
      const t0 = performance.now();
      await service.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.message", content: [{ type: "text", text }] }] });
      return (await idle) - t0;
    },
  };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
/** With `node --expose-gc`, the heap is collected first, so "heap used" is what stays reachable. */
const gc = (globalThis as { gc?: () => void }).gc;
function memory(): string {
  gc?.();
  const m = process.memoryUsage();
  return `rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)}${gc ? " (after a full GC)" : ""}, peak rss ${mb(process.resourceUsage().maxRSS * 1024)}`;
}

async function main(): Promise<void> {
  const service = await startService("bench-history");
  const abort = new AbortController();
  try {
    const agent = await service.post("/v1/agents", {
      name: "bench",
      modelName: "mock/bench",
      systemPrompt: "",
      skills: [],
      tools: [],
      rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 },
    });
    const open = async (subjectId: string, events: number) => {
      const session = await service.post("/v1/sessions", { agentId: agent.id, subjectId });
      const t0 = performance.now();
      await fill(service, String(session.id), events);
      console.log(`filled ${subjectId}: ${events} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      return watch(service, String(session.id), abort.signal);
    };
    const small = await open("small", SMALL);
    const large = await open("large", LARGE);
    const before = memory();

    // The first turn of each builds whatever the worker keeps; the timed ones follow, alternating so
    // that noise from the shared machine falls on both alike.
    const first = { small: await small.turn("first"), large: await large.turn("first") };
    const times = { small: [] as number[], large: [] as number[] };
    for (let i = 0; i < TURNS; i++) {
      times.small.push(await small.turn(`question ${i}`));
      times.large.push(await large.turn(`question ${i}`));
    }
    const after = memory();

    const s = summary(times.small);
    const l = summary(times.large);
    const f = (n: number) => n.toFixed(1).padStart(7);
    console.log(`${await conditions()}; the machine is shared with other work, so timings are noisy`);
    console.log(`turn: POST user.message → session.status_idle over SSE, mock model, ${TURNS} warm turns per session`);
    console.log(`    ${String(SMALL).padStart(7)} events   first ${f(first.small)} ms   p50 ${f(s.p50)} ms   p99 ${f(s.p99)} ms`);
    console.log(`    ${String(LARGE).padStart(7)} events   first ${f(first.large)} ms   p50 ${f(l.p50)} ms   p99 ${f(l.p99)} ms`);
    console.log(`    ratio large/small      p50 ${(l.p50 / s.p50).toFixed(2)}x   p99 ${(l.p99 / s.p99).toFixed(2)}x`);
    console.log(`memory before the turns: ${before}`);
    console.log(`memory after the turns:  ${after}`);
  } finally {
    abort.abort();
    await service.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
