/** The key, a recording stream handler, a request and result helpers shared by the anthropic provider tests. */
import { expect } from "chai";
import type { ModelRequest, ModelResult, StreamHandlers, TokenUsage } from "../src/providers/provider.js";

export const KEY = "sk-ant-test-0123456789abcdef";

export interface Seen {
  deltas: string[];
  thinking: string[];
  /** Handler calls in order, e.g. `text:hi`, `thinking:…`. */
  order: string[];
}

export function recorder(): StreamHandlers & Seen {
  const seen: Seen = { deltas: [], thinking: [], order: [] };
  return {
    ...seen,
    async onTextDelta(text: string) {
      seen.deltas.push(text);
      seen.order.push(`text:${text}`);
    },
    async onThinking(text: string) {
      seen.thinking.push(text);
      seen.order.push(`thinking:${text}`);
    },
  };
}

export function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "claude-sonnet-4-6",
    system: "You are a test agent.",
    messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
    tools: [],
    steers: [],
    signal: new AbortController().signal,
    ...over,
  };
}

export const zero = (): TokenUsage => ({ input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 });

export function expectFailure(result: ModelResult): string {
  expect(result.ok, JSON.stringify(result)).to.equal(false);
  return (result as { error: string }).error;
}
