/**
 * The one owner of a session state change. Given the session, a planning function (pure: state → plan)
 * and, for a worker, its fencing token, it reads the runtime state, plans, appends with compare-and-set,
 * retries a stale attempt with a short jittered backoff up to a bound, and projects the status onto the
 * MongoDB record, in this order:
 *
 *   1. mark intents, in one round trip: `pending` when the plan wakes a worker, and this writer's own
 *      `projections` member when the plan changes the status;
 *   2. append (the commit point): the log, the state and its version move together, or not at all;
 *   3. publish the wake-up;
 *   4. write the record's status with the version the append produced (an older version never
 *      overwrites a newer one), then clear this writer's `projections` member.
 *
 * A process that dies between 2 and 4, or whose record write fails (MongoDB down: the log still
 * advances), leaves a record that lags its log and its mark; the recovery sweep (`repairProjection`)
 * rewrites such records from the log. Readers never see the lag: `GET` reads Redis, and a list matches
 * the sessions whose records are being changed (the marked ones) by their status in Redis.
 * A call that appends nothing it knows of still writes the record from the state as it then is before
 * dropping its marks (a stale reply can hide a commit whose reply was lost); an append that threw leaves
 * its marks to the sweep. A record write that fails after a commit marks the session afresh.
 */
import { AppError, notFound } from "../errors.js";
import type { Plan, PlanResult, RuntimeState, SessionStatus } from "../domain/session-state.js";

type Accepted = Extract<PlanResult, { ok: true }>;
import type { Logger } from "../log.js";
import type { Appended, AppendResult, EventAppender } from "../redis/event-appender.js";
import type { EventLog } from "../redis/event-log.js";
import { sessionOfProjection, type Intents } from "../redis/intents.js";
import type { Wakeups } from "../redis/wakeups.js";

/** What a planning function decided: a plan to apply, or nothing to change; `value` is handed back. */
export type Planned<T> = { plan: Plan; value: T } | { plan: null; value: T };

export const change = <T>(plan: Plan, value: T): Planned<T> => ({ plan, value });
export const unchanged = <T>(value: T): Planned<T> => ({ plan: null, value });

/** A domain planner's answer as a step: its plan (handing back the result), nothing to do, or its refusal as an application error. */
export function decided(result: PlanResult | null): Planned<Accepted | null> {
  if (!result) return unchanged(null);
  if (!result.ok) throw new AppError(result.rejection.code, result.rejection.message);
  return change(result.plan, result);
}

export interface TransitionOptions {
  /** The worker's fencing token (its lock's value); absent for API pods. */
  fence?: string;
  /** Runs before each append, after planning (e.g. counting an allowance once the plan is known good). */
  beforeAppend?: (plan: Plan) => Promise<void>;
}

export interface Transition<T> {
  value: T;
  /** What the append wrote; null when the plan changed nothing. */
  applied: Appended | null;
  /** The state the final plan was made from. */
  state: RuntimeState;
}

/** The record's status projection (MongoDB). */
export interface StatusProjection {
  /** Writes `status` as of state version `version`, unless the record already reflects a later one. */
  projectStatus(sessionId: string, status: SessionStatus, version: number): Promise<void>;
}

/** Attempts before a contended transition gives up with a clear error. */
export const MAX_ATTEMPTS = 20;
const BACKOFF_BASE_MS = 2;
const BACKOFF_CAP_MS = 100;

/** Full jitter: a random wait up to a cap that doubles per attempt. */
function backoff(attempt: number): Promise<void> {
  const cap = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}

/** The status a plan sets, when it is one the record keeps (a deleted session's record is removed). */
function projected(plan: Plan): SessionStatus | undefined {
  const status = plan.state.status;
  return status === undefined || status === "deleted" ? undefined : status;
}

export class SessionTransitions {
  constructor(
    private readonly log: EventLog,
    private readonly appender: EventAppender,
    private readonly intents: Intents,
    private readonly wakeups: Wakeups,
    private readonly records: StatusProjection,
    private readonly logger: Logger,
  ) {}

  async run<T>(sessionId: string, planner: (state: RuntimeState) => Planned<T>, opts: TransitionOptions = {}): Promise<Transition<T>> {
    /** This call's `projections` members: each marks an attempt that may have appended a status. */
    const marks: string[] = [];
    /** Whether an append is known to have committed, known not to, or may have (it threw). */
    let outcome: "none" | "committed" | "unknown" = "none";
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        if (attempt > 0) await backoff(attempt);
        const state = await this.log.existingState(sessionId);
        if (!state) throw notFound("session");
        const planned = planner(state);
        if (!planned.plan) return { value: planned.value, applied: null, state };
        const plan = planned.plan;
        await opts.beforeAppend?.(plan);
        const status = projected(plan);
        const marked = await this.intents.mark(sessionId, { wake: plan.wake, project: status !== undefined });
        if (marked.projection) marks.push(marked.projection);
        let result: AppendResult;
        try {
          result = await this.appender.apply(sessionId, plan, state.v, opts.fence ?? "");
        } catch (err) {
          // The script may have run (a reply lost with the connection): the marks stay for the sweep.
          outcome = "unknown";
          throw err;
        }
        if (result.ok) {
          outcome = "committed";
          if (plan.wake) await this.publish(sessionId);
          if (status === undefined || (await this.write(sessionId, status, result.version))) await this.clear(marks);
          else if (await this.remark(sessionId)) await this.clear(marks);
          return { value: planned.value, applied: result, state };
        }
        if (result.reason === "missing") throw notFound("session");
        if (result.reason === "fenced") throw new AppError("lock_lost", "the session's turn lock was taken over by another worker");
      }
      throw new AppError("busy", "the session is changing too often to apply this change right now; retry with exponential backoff");
    } finally {
      if (outcome === "none" && marks.length > 0) await this.settle(sessionId, marks);
    }
  }

  /**
   * Ends the marks of a call that appended nothing it knows of. A stale reply can hide a commit (a reply
   * lost and the command re-sent by the client), so the record is written from the state as it is now,
   * which holds any such commit, before the marks go.
   */
  private async settle(sessionId: string, marks: string[]): Promise<void> {
    const state = await this.log.existingState(sessionId).catch(() => undefined);
    if (state === undefined) return; // Redis unreachable: the sweep settles the marks later.
    if (state && state.status !== "deleted" && !(await this.write(sessionId, state.status, state.v))) return;
    await this.clear(marks);
  }

  /**
   * A record write failed after a commit: a fresh mark in place of this writer's, so the sweep repairs
   * the record even if it has meanwhile cleared the older mark (it cannot tell a slow writer from a
   * dead one). False when Redis refused it too; the older marks then stay.
   */
  private async remark(sessionId: string): Promise<boolean> {
    try {
      await this.intents.mark(sessionId, { wake: false, project: true });
      return true;
    } catch (err) {
      this.logger.warn("record repair not marked", { sessionId, err });
      return false;
    }
  }

  /** Marks whose work is done; one left behind only costs the sweep a needless (idempotent) rewrite. */
  private async clear(marks: string[]): Promise<void> {
    await this.intents.clearProjections(marks).catch((err: unknown) => this.logger.warn("intent marks not cleared", { err }));
  }

  /** The fast path to a worker; should it fail, the `pending` mark made before the append gets the session served. */
  private async publish(sessionId: string): Promise<void> {
    try {
      await this.wakeups.publish(sessionId);
    } catch (err) {
      this.logger.warn("wake-up not published; the sweep will serve the session", { sessionId, err });
    }
  }

  /**
   * Rewrites a record a writer may have left behind its log (a `projections` member older than any live
   * writer's) from the runtime state as it is now; the record's version guard keeps a live writer's
   * later write from being undone.
   */
  async repairProjection(member: string): Promise<void> {
    const sessionId = sessionOfProjection(member);
    const state = await this.log.existingState(sessionId);
    if (state && state.status !== "deleted" && !(await this.write(sessionId, state.status, state.v))) return;
    await this.intents.clearProjections([member]);
  }

  /** Writes the record; false (logged) when it failed, so the caller keeps its mark for the sweep. */
  private async write(sessionId: string, status: SessionStatus, version: number): Promise<boolean> {
    try {
      await this.records.projectStatus(sessionId, status, version);
      return true;
    } catch (err) {
      this.logger.warn("session record not updated; the recovery sweep will", { sessionId, err });
      return false;
    }
  }
}
