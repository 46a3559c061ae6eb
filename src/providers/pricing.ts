/**
 * Prices of known models, in US dollars per million tokens, for `cost_usd` (`cost_status: estimated`),
 * keyed by `<provider>/<model>`: a model of a named endpoint (`local/gpt-4o`) is not priced as OpenAI's.
 * A model not listed has no `cost_usd` and `cost_status: unknown`. Cache writes are priced at the
 * 5-minute cache rate (Anthropic; OpenAI has none), cache reads at the cached-input rate.
 */
import type { TokenUsage } from "./provider.js";

interface Price {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

/** Anthropic's models by prefix (a prefix covers a family's dated versions). */
const ANTHROPIC: { prefix: string; price: Price }[] = [
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

const openai = (input: number, cacheRead: number, output: number): Price => ({ input, output, cacheWrite: 0, cacheRead });

/**
 * OpenAI's models by exact name, a dated snapshot (`gpt-4o-2024-08-06`) priced as its model: OpenAI's
 * names nest (`gpt-5`, `gpt-5-mini`, `gpt-5.1`), so a prefix would misprice. Standard tier, from OpenAI's
 * pricing page (openai.com/api/pricing), checked 2026-10.
 */
const OPENAI = new Map<string, Price>(
  Object.entries({
    "gpt-5": openai(1.25, 0.125, 10),
    "gpt-5.1": openai(1.25, 0.125, 10),
    "gpt-5-mini": openai(0.25, 0.025, 2),
    "gpt-5-nano": openai(0.05, 0.005, 0.4),
    "gpt-4.1": openai(2, 0.5, 8),
    "gpt-4.1-mini": openai(0.4, 0.1, 1.6),
    "gpt-4.1-nano": openai(0.1, 0.025, 0.4),
    "gpt-4o": openai(2.5, 1.25, 10),
    "gpt-4o-mini": openai(0.15, 0.075, 0.6),
    o1: openai(15, 7.5, 60),
    o3: openai(2, 0.5, 8),
    "o3-mini": openai(1.1, 0.55, 4.4),
    "o4-mini": openai(1.1, 0.275, 4.4),
  }),
);

/** The price of `<provider>/<model>`, if known. */
export function priceOf(modelName: string): Price | undefined {
  const slash = modelName.indexOf("/");
  if (slash < 0) return undefined;
  const provider = modelName.slice(0, slash);
  const model = modelName.slice(slash + 1);
  if (provider === "anthropic") return ANTHROPIC.find((p) => model.startsWith(p.prefix))?.price;
  if (provider === "openai") return OPENAI.get(model.replace(/-\d{4}-\d{2}-\d{2}$/, ""));
  return undefined;
}

/** Cost of one call's tokens (`model` is `<provider>/<model>`), or undefined when its price is unknown. */
export function costOf(model: string, usage: TokenUsage): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  const dollars =
    (usage.input * price.input + usage.output * price.output + usage.cache_write * price.cacheWrite + usage.cache_read * price.cacheRead) / 1_000_000;
  return Math.round(dollars * 1e6) / 1e6;
}
