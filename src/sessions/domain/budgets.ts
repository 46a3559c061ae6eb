/**
 * Spend budgets: a session's optional limit in dollars against what its turns have cost, as the usage
 * accounting reports it (`cost_usd` of the session's usage total plus the running turn's). Pure.
 */
import type { Usage } from "./events.js";

/** What the session has spent: every ended turn's cost, plus the running turn's so far. */
export function spentUsd(total: Pick<Usage, "cost_usd"> | null | undefined, turn?: Pick<Usage, "cost_usd"> | null): number {
  return Math.round(((total?.cost_usd ?? 0) + (turn?.cost_usd ?? 0)) * 1e6) / 1e6;
}

/** True when a limit is set and the spend has reached it: no further model call is made. */
export function budgetReached(limitUsd: number | null | undefined, spent: number): boolean {
  return limitUsd !== null && limitUsd !== undefined && spent >= limitUsd;
}
