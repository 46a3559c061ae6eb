/**
 * The built-in offline model (`mock/<anything>`), driven by the text of the latest user message:
 *   plain text             → replies `echo: <text>`, streamed in several deltas
 *   /slow <ms> <text>      → waits <ms> (an interrupt stops it), then echoes <text>
 *   /error <text>          → the turn ends with stop_reason {type: error, message: <text>}
 *   /think <text>          → emits agent.thinking, then echoes <text>
 * Steers received since the previous call are appended to the reply as ` [steer: <text>]`.
 */
import type { ModelMessage, ModelProvider, ModelRequest, ModelResult, StreamHandlers, TokenUsage } from "./provider.js";
import { sleep, textOfBlocks } from "./provider.js";

const CONTEXT_MAX = 200_000;
const MAX_SLOW_MS = 600_000;
const DELTA_COUNT = 4;

const tokens = (text: string) => Math.ceil(text.length / 4);

function promptTokens(request: ModelRequest): number {
  const messages = request.messages.reduce((n, m: ModelMessage) => n + tokens(JSON.stringify(m.content)), 0);
  return tokens(request.system) + messages + request.steers.reduce((n, s) => n + tokens(s), 0);
}

/** Splits text into a few chunks at word boundaries, so clients see real streaming. */
export function chunks(text: string, count = DELTA_COUNT): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export class MockProvider implements ModelProvider {
  async call(request: ModelRequest, handlers: StreamHandlers): Promise<ModelResult> {
    const last = [...request.messages].reverse().find((m) => m.role === "user");
    let text = last ? textOfBlocks(last.content).trim() : "";
    const usage: TokenUsage = { input: promptTokens(request), output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };

    const slow = /^\/slow\s+(\d+)\s*([\s\S]*)$/.exec(text);
    if (slow) {
      await sleep(Math.min(Number(slow[1]), MAX_SLOW_MS), request.signal);
      text = slow[2]!;
    }
    const error = /^\/error\s*([\s\S]*)$/.exec(text);
    if (error) return { ok: false, error: error[1] || "mock error", usage, contextMax: CONTEXT_MAX };
    const think = /^\/think\s*([\s\S]*)$/.exec(text);
    if (think) {
      text = think[1]!;
      const thought = `thinking about: ${text}`;
      usage.reasoning = tokens(thought);
      await handlers.onThinking(thought);
    }

    const steer = request.steers.map((s) => ` [steer: ${s}]`).join("");
    const reply = `echo: ${text}${steer}`;
    for (const part of chunks(reply)) {
      if (request.signal.aborted) break;
      await handlers.onTextDelta(part);
    }
    usage.output = tokens(reply) + usage.reasoning;
    return { ok: true, text: reply, toolUses: [], usage, contextMax: CONTEXT_MAX };
  }
}
