/**
 * What a provider costs between the model and the client: the time from a model stream's first text
 * chunk (written by a local fake server) to the `agent.message` delta frame it becomes on the session's
 * SSE stream, for the OpenAI-compatible provider (a fake Chat Completions server) beside the Anthropic
 * provider (the fake Messages API), measured in the same run, turns alternating between the two, and
 * printed with their ratio. The fakes run in this process, so both ends read one clock. Uses
 * MONGO_URL/REDIS_URL (defaults: the local services), a database and Redis namespace of its own, removed
 * when done. Options: BENCH_SAMPLES (default 100 turns per provider).
 */
import { performance } from "node:perf_hooks";
import { FakeAnthropic } from "../test/support/fake-anthropic.js";
import { FakeOpenAi } from "../test/support/fake-openai.js";
import { conditions, fixed as f, sse, startService, summary, type Service } from "./support.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const KEY = "sk-bench-provider";
const TEXT = "A streamed answer of a few chunks, as a model writes it.";

interface Watched {
  name: string;
  sessionId: string;
  /** When the next turn's first delta frame arrived. */
  nextFrame(): Promise<number>;
  idle(): Promise<void>;
  stop(): void;
}

async function watched(service: Service, name: string, modelName: string): Promise<Watched> {
  const rateLimits = { conversationsPerMinute: 300, messagesPerMinute: 1000 };
  const agent = await service.post("/v1/agents", { name, modelName, systemPrompt: "You answer.", skills: [], tools: [], rateLimits });
  const session = await service.post("/v1/sessions", { agentId: agent.id, subjectId: `bench-${name}` });
  const sessionId = String(session.id);
  const stop = new AbortController();
  let onFrame: ((at: number) => void) | undefined;
  let onIdle: (() => void) | undefined;
  await sse(
    `${service.base}/v1/sessions/${sessionId}/events/stream`,
    service.key,
    (event, data) => {
      const at = performance.now();
      if (event === "agent.message" && onFrame && (JSON.parse(data) as { payload: { delta: boolean } }).payload.delta) {
        onFrame(at);
        onFrame = undefined;
      }
      if (event === "session.status_idle") onIdle?.();
    },
    stop.signal,
  );
  return {
    name,
    sessionId,
    nextFrame: () => new Promise((resolve) => (onFrame = resolve)),
    idle: () => new Promise((resolve) => (onIdle = resolve)),
    stop: () => stop.abort(),
  };
}

/** One turn: post a message, wait for its first delta frame and its end; answers frame time minus first chunk time. */
async function turn(service: Service, w: Watched, firstTextAt: () => number | undefined): Promise<number> {
  const frame = w.nextFrame();
  const idle = w.idle();
  await service.post(`/v1/sessions/${w.sessionId}/events`, { events: [{ type: "user.message", content: [{ type: "text", text: "hi" }] }] });
  const at = await frame;
  await idle;
  const sent = firstTextAt();
  if (sent === undefined) throw new Error(`${w.name}: the fake wrote no text`);
  return at - sent;
}

async function main(): Promise<void> {
  const anthropic = await FakeAnthropic.start({ apiKey: KEY });
  const openai = await FakeOpenAi.start({ apiKey: KEY });
  const service = await startService("bench-provider", {
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    ANTHROPIC_THINKING_BUDGET_TOKENS: "0",
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: openai.url,
  });
  try {
    const viaAnthropic = await watched(service, "anthropic", "anthropic/claude-sonnet-4-6");
    const viaOpenAi = await watched(service, "openai", "openai/gpt-4o");
    const ms = { anthropic: [] as number[], openai: [] as number[] };
    // Two warm-up turns each, then the samples, alternating so both meet the same conditions.
    for (let i = -2; i < SAMPLES; i++) {
      anthropic.push({ text: TEXT, chunkSize: 12 });
      const a = await turn(service, viaAnthropic, () => anthropic.requests.at(-1)?.firstTextAt);
      openai.push({ text: TEXT, chunkSize: 12 });
      const o = await turn(service, viaOpenAi, () => openai.requests.at(-1)?.firstTextAt);
      if (i >= 0) {
        ms.anthropic.push(a);
        ms.openai.push(o);
      }
    }
    viaAnthropic.stop();
    viaOpenAi.stop();
    const a = summary(ms.anthropic);
    const o = summary(ms.openai);
    console.log(`first text chunk written by the model's server → its agent.message delta frame read over SSE, ${SAMPLES} turns each, alternating`);
    const line = (label: string, cells: string[]) => console.log(`    ${label.padEnd(48)} ${cells.join("   ")}`);
    const ms3 = (s: { p50: number; p95: number; p99: number }) => [`p50 ${f(s.p50)} ms`, `p95 ${f(s.p95)} ms`, `p99 ${f(s.p99)} ms`];
    line("anthropic provider (fake Messages API)", ms3(a));
    line("openai provider (fake Chat Completions server)", ms3(o));
    line("ratio openai / anthropic", [`p50 ${f(o.p50 / a.p50)}x   `, `p95 ${f(o.p95 / a.p95)}x   `, `p99 ${f(o.p99 / a.p99)}x`]);
    console.log(await conditions());
    console.log("the benchmark client, the fake model servers, the API and a worker run in one Node process");
  } finally {
    await service.close();
    await anthropic.close();
    await openai.close();
  }
}

await main();
