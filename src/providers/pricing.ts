/**
 * Prices of known models, in US dollars per million tokens, for `cost_usd` (`cost_status: estimated`).
 * A model not listed has no `cost_usd` and `cost_status: unknown`. Cache writes are priced at the
 * 5-minute cache rate, cache reads at the cached-input rate.
 */
import type { TokenUsage } from "./provider.js";

interface Price {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

const PRICES: { prefix: string; price: Price }[] = [
  // Opus 4.5 and later cost a third of Opus 4 and 4.1; these must come before the `claude-opus-4` prefix.
  ...["4-5", "4-6", "4-7", "4-8"].map((v) => ({ prefix: `claude-opus-${v}`, price: { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 } })),
  { prefix: "claude-opus-4", price: { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 } },
  { prefix: "claude-sonnet-4", price: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 } },
  { prefix: "claude-3-7-sonnet", price: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 } },
  { prefix: "claude-3-5-sonnet", price: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 } },
  { prefix: "claude-haiku-4", price: { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 } },
  { prefix: "claude-3-5-haiku", price: { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 } },
  { prefix: "claude-3-haiku", price: { input: 0.25, output: 1.25, cacheWrite: 0.3, cacheRead: 0.03 } },
];

export function priceOf(model: string): Price | undefined {
  return PRICES.find((p) => model.startsWith(p.prefix))?.price;
}

/** Cost of one call's tokens, or undefined when the model's price is unknown. */
export function costOf(model: string, usage: TokenUsage): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  const dollars =
    (usage.input * price.input + usage.output * price.output + usage.cache_write * price.cacheWrite + usage.cache_read * price.cacheRead) / 1_000_000;
  return Math.round(dollars * 1e6) / 1e6;
}
