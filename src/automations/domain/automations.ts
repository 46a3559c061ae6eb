/**
 * Automation rules, pure: the state an automation is in, when it runs next, what a change or a finished
 * occurrence does to it. The service and the scheduler apply what these return.
 */
import { occurrenceAfter, type Schedule } from "./schedule.js";
import type { automationSchema } from "../../../schemas/automation.js";
import type { automationRunSchema } from "../../../schemas/automation-run.js";

/**
 * `active`: occurrences are scheduled (`nextRunAt` set); `paused`: stopped by pause; `disabled`:
 * `enabled: false`; `completed`: no occurrence left (`repeat` reached, or a one-time occurrence ran).
 */
export type AutomationState = (typeof automationSchema.properties.state.enum)[number];

export type RunStatus = (typeof automationRunSchema.properties.status.enum)[number];

export interface RunSummary {
  id: string;
  at: Date;
  status: RunStatus;
  sessionId: string | null;
  error: string | null;
}

/** The facts the rules read. */
export interface AutomationFacts {
  schedule: Schedule;
  repeat: number | null;
  enabled: boolean;
  paused: boolean;
  /** Scheduled occurrences whose session was created and prompt accepted: what `repeat` counts. */
  completedOccurrences: number;
  /** The scheduled time of the last occurrence counted (run or failed); the one-time schedule's end. */
  lastOccurrenceAt: Date | null;
  nextRunAt: Date | null;
}

/** No occurrence left: `repeat` reached, or the one-time occurrence has happened. */
export function exhausted(a: AutomationFacts): boolean {
  if (a.repeat !== null && a.completedOccurrences >= a.repeat) return true;
  return a.schedule.kind === "once" && a.lastOccurrenceAt?.getTime() === a.schedule.at;
}

export function stateOf(a: AutomationFacts): AutomationState {
  if (exhausted(a)) return "completed";
  if (!a.enabled) return "disabled";
  return a.paused ? "paused" : "active";
}

/**
 * The next occurrence of an automation that becomes (or stays) active at `now`: the next eligible one
 * from now, so resuming never fires a burst of missed occurrences. A one-time occurrence that has not
 * happened stays due at its time, and so runs at once when resumed after it.
 */
export function nextFrom(a: AutomationFacts, now: number): Date | null {
  if (stateOf(a) !== "active") return null;
  const at = a.schedule.kind === "once" ? a.schedule.at : occurrenceAfter(a.schedule, now);
  return at === null ? null : new Date(at);
}

/** The fields a change may touch, as the service has read and checked them. */
export interface AutomationChange {
  schedule?: Schedule;
  repeat?: number | null;
  enabled?: boolean;
  paused?: boolean;
}

/**
 * The automation after a change, with its `nextRunAt`: kept when it stays active on the same schedule
 * (renaming does not move the next run), else computed from now.
 */
export function applyChange<T extends AutomationFacts>(a: T, change: AutomationChange, now: number): T {
  const after = { ...a, ...change } as T;
  const keep = stateOf(a) === "active" && change.schedule === undefined && a.nextRunAt !== null;
  after.nextRunAt = keep && stateOf(after) === "active" ? a.nextRunAt : nextFrom(after, now);
  return after;
}

export type OccurrenceOutcome = { status: "succeeded"; sessionId: string } | { status: "failed"; sessionId: string | null; error: string };

/** What counting an occurrence adds: every run counts in `runCount`, a failed one in `failedRunCount` too. */
export function countsOf(outcome: OccurrenceOutcome, scheduled: boolean): { runCount: number; failedRunCount: number; completedOccurrences: number } {
  const failed = outcome.status === "failed" ? 1 : 0;
  return { runCount: 1, failedRunCount: failed, completedOccurrences: scheduled && !failed ? 1 : 0 };
}

/**
 * The occurrence after the one scheduled at `scheduled` ran at `now` (its count already in `a`): the
 * next one strictly after both, so an occurrence fired late never brings a burst of the ones it missed.
 */
export function nextAfterOccurrence(a: AutomationFacts, scheduled: Date, now: number): Date | null {
  if (stateOf(a) !== "active") return null;
  const at = occurrenceAfter(a.schedule, Math.max(scheduled.getTime(), now));
  return at === null ? null : new Date(at);
}
