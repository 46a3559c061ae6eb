/** A session's usage: every ended turn's usage added up. Pure. */
import type { Usage } from "./events.js";
import type { TokenUsage } from "../../providers/domain/model-types.js";

type Summed = "input" | "output" | "cache_read" | "cache_write" | "reasoning" | "total" | "calls" | "latency_ms";

/** `prev` with one more turn's usage added: counts summed, the latest turn's context and cost status. */
export function addedUp(prev: Usage | null, usage: Usage): Usage {
  const sum = (k: Summed) => (prev?.[k] ?? 0) + usage[k];
  const aggregate: Usage = {
    model: usage.model,
    input: sum("input"),
    output: sum("output"),
    cache_read: sum("cache_read"),
    cache_write: sum("cache_write"),
    reasoning: sum("reasoning"),
    total: sum("total"),
    calls: sum("calls"),
    context_used: usage.context_used,
    context_max: usage.context_max,
    context_percent: usage.context_percent,
    cost_status: usage.cost_status,
    last_turn_latency_ms: usage.last_turn_latency_ms,
    latency_ms: sum("latency_ms"),
  };
  if (usage.cost_usd !== undefined || prev?.cost_usd !== undefined) aggregate.cost_usd = (prev?.cost_usd ?? 0) + (usage.cost_usd ?? 0);
  return aggregate;
}

/** `prev` with a model call's spending added that changed no context (a summary left unused): counts summed, the last turn's context and latency kept. */
export function addedSpending(prev: Usage | null, usage: Usage): Usage {
  const total = addedUp(prev, usage);
  if (!prev) return total;
  return {
    ...total,
    context_used: prev.context_used,
    context_max: prev.context_max,
    context_percent: prev.context_percent,
    last_turn_latency_ms: prev.last_turn_latency_ms,
  };
}

/** Two token counts added up, kind by kind. */
export function addedTokens(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cache_read: a.cache_read + b.cache_read,
    cache_write: a.cache_write + b.cache_write,
    reasoning: a.reasoning + b.reasoning,
  };
}

/** What child threads spent (delegation), as a turn's usage carries it beside its own calls. */
export interface ThreadSpend {
  tokens: TokenUsage;
  calls: number;
  costUsd: number;
}

/** A turn's own usage with its child threads' spending added: tokens, calls and cost; the context stays the turn's own. */
export function withThreadSpend(own: Usage, threads: ThreadSpend): Usage {
  const t = threads.tokens;
  const out: Usage = {
    ...own,
    input: own.input + t.input,
    output: own.output + t.output,
    cache_read: own.cache_read + t.cache_read,
    cache_write: own.cache_write + t.cache_write,
    reasoning: own.reasoning + t.reasoning,
    total: own.total + t.input + t.output + t.cache_read + t.cache_write,
    calls: own.calls + threads.calls,
  };
  if (own.cost_usd !== undefined || threads.costUsd > 0) out.cost_usd = (own.cost_usd ?? 0) + threads.costUsd;
  return out;
}

/** A turn's usage with its child threads' cost taken out again: what the turn itself costs. */
export function withoutThreadSpend(usage: Usage, threadsUsd: number): Usage {
  if (threadsUsd <= 0 || usage.cost_usd === undefined) return usage;
  return { ...usage, cost_usd: Math.max(0, usage.cost_usd - threadsUsd) };
}
