/** Figures as people read them: token counts, cost and durations of a turn's or a session's usage. */
import type { Usage } from "./types.js";

const count = new Intl.NumberFormat(undefined);

export function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export function cost(usage: Usage): string {
  if (usage.cost_usd === undefined) return usage.cost_status === "included" ? "cost included" : "cost unknown";
  if (usage.cost_usd === 0) return "$0";
  return `$${usage.cost_usd < 0.01 ? usage.cost_usd.toFixed(4) : usage.cost_usd.toFixed(2)}${usage.cost_status === "estimated" ? " (est.)" : ""}`;
}

/** `which`: a turn's `latency_ms` is its own wall-clock time; a session's is the sum of its turns'. */
export function usageLine(usage: Usage, which: "turn" | "session"): string {
  const parts = [
    `${count.format(usage.total)} tokens (${count.format(usage.input)} in, ${count.format(usage.output)} out)`,
    cost(usage),
    `${duration(usage.latency_ms)}${which === "session" ? " in turns" : ""}`,
    `${usage.calls} model call${usage.calls === 1 ? "" : "s"}`,
  ];
  return parts.join(" · ");
}
