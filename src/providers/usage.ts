/** The usage snapshot of one turn (spec: Usage snapshot), from the token counts of its model calls. */
import type { Usage } from "../sessions/domain/events.js";
import { costOf } from "./pricing.js";
import type { TokenUsage } from "./provider.js";

export interface SnapshotOptions {
  /** The tokens of the turn's last call, which measure the context window; default `tokens`. */
  lastCall?: TokenUsage;
  /** For providers whose calls cost nothing extra (the mock): `cost_usd: 0`, `cost_status: included`. */
  included?: boolean;
}

/** Adds one call's tokens to a running total. */
export function addUsage(total: TokenUsage, call: TokenUsage): void {
  total.input += call.input;
  total.output += call.output;
  total.cache_read += call.cache_read;
  total.cache_write += call.cache_write;
  total.reasoning += call.reasoning;
}

/** What a call held in its window: everything it read, cached or not, plus what it wrote. */
export function contextTokens(call: TokenUsage): number {
  return call.input + call.cache_read + call.cache_write + call.output;
}

/**
 * `tokens` are the turn's calls summed; `model` is `<provider>/<model>`, as the price table is keyed.
 * `cost_usd` is omitted when the model has no price (`cost_status: unknown`).
 */
export function usageSnapshot(model: string, tokens: TokenUsage, calls: number, contextMax: number, latencyMs: number, opts: SnapshotOptions = {}): Usage {
  const contextUsed = contextTokens(opts.lastCall ?? tokens);
  const cost = opts.included ? 0 : costOf(model, tokens);
  return {
    model,
    input: tokens.input,
    output: tokens.output,
    cache_read: tokens.cache_read,
    cache_write: tokens.cache_write,
    reasoning: tokens.reasoning,
    total: tokens.input + tokens.output + tokens.cache_read + tokens.cache_write,
    calls,
    context_used: contextUsed,
    context_max: contextMax,
    context_percent: contextMax > 0 ? Math.min(100, Math.round((contextUsed * 100) / contextMax)) : 0,
    ...(cost === undefined ? {} : { cost_usd: cost }),
    cost_status: opts.included ? "included" : cost === undefined ? "unknown" : "estimated",
    last_turn_latency_ms: latencyMs,
    latency_ms: latencyMs,
  };
}
