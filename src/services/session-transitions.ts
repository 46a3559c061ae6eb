/**
 * The one owner of a session state change. Given the session, a planning function (pure: state → plan)
 * and, for a worker, its fencing token, it reads the runtime state, plans, appends with compare-and-set,
 * retries a stale attempt with a short jittered backoff up to a bound, and keeps the MongoDB record's
 * `status` projection in step, in this order:
 *
 *   1. mark intents (one round trip): `pending` when the plan wakes a worker, and this writer's own
 *      `projections` member when the plan changes the status;
 *   2. reserve the record: write the planned status with the version the append will produce (v + 1);
 *   3. append (the commit point): the log, the state and the version move together, or not at all;
 *   4. publish the wake-up, clear this writer's `projections` members.
 *
 * Why the record is written before the append: a reader who has seen the new status anywhere (SSE,
 * history, GET) then finds the session under it in a list filtered by status; on FerretDB a record write
 * takes milliseconds to tens of milliseconds, a window readers would otherwise see. The cost is that a
 * reservation can be left standing for a version the append did not produce. Each way it can happen is
 * closed: an attempt that loses the compare-and-set retries and reserves a higher version, or ends by
 * restoring the record to the state as it then is; a process that dies between 2 and 3 (or whose record
 * write fails) leaves its `projections` member, and the recovery sweep (`repairProjection`) rewrites
 * the record from the log through this same function. Readers never see a phantom meanwhile: lists show
 * only items whose authoritative status (Redis) matches their filter.
 */
import { isAppError, notFound, AppError, unavailable } from "../errors.js";
import type { Plan, RuntimeState, SessionStatus } from "../domain/session-state.js";
import type { Logger } from "../log.js";
import type { Appended, EventAppender } from "../redis/event-appender.js";
import type { EventLog } from "../redis/event-log.js";
import { sessionOfProjection, type Intents } from "../redis/intents.js";
import type { Wakeups } from "../redis/wakeups.js";

/** What a planning function decided: a plan to apply, or nothing to change; `value` is handed back. */
export type Planned<T> = { plan: Plan; value: T } | { plan: null; value: T };

export const change = <T>(plan: Plan, value: T): Planned<T> => ({ plan, value });
export const unchanged = <T>(value: T): Planned<T> => ({ plan: null, value });

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
    /** `projections` members of this call's attempts whose reservations may still stand. */
    const reserved: string[] = [];
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const state = await this.log.existingState(sessionId);
      if (!state) {
        await this.intents.clearProjections(reserved);
        throw notFound("session");
      }
      let planned: Planned<T>;
      try {
        planned = planner(state);
        if (planned.plan) await opts.beforeAppend?.(planned.plan);
      } catch (err) {
        await this.restore(sessionId, state, reserved);
        throw err;
      }
      if (!planned.plan) {
        await this.restore(sessionId, state, reserved);
        return { value: planned.value, applied: null, state };
      }
      const plan = planned.plan;
      const status = projected(plan);
      const marks = await this.intents.mark(sessionId, { wake: plan.wake, project: status !== undefined });
      if (marks.projection) reserved.push(marks.projection);
      const recorded = status === undefined || (await this.write(sessionId, status, state.v + 1));
      const result = await this.appender.apply(sessionId, plan, state.v, opts.fence ?? "");
      if (result.ok) {
        if (plan.wake) await this.wakeups.publish(sessionId);
        // A record write that failed leaves the marks for the sweep.
        if (recorded) await this.intents.clearProjections(reserved);
        return { value: planned.value, applied: result, state };
      }
      if (result.reason === "stale") continue;
      if (result.reason === "missing") {
        await this.intents.clearProjections(reserved);
        throw notFound("session");
      }
      // Fenced: the state did not move, so this reservation (v + 1) is ahead of it and no write at the
      // current version may undo it without risking the new lock holder's. The sweep repairs it.
      throw new AppError("lock_lost", "the session's turn lock was taken over by another worker");
    }
    const last = await this.log.existingState(sessionId);
    if (last) await this.restore(sessionId, last, reserved);
    throw unavailable("the session is changing too often to apply this change right now; retry with exponential backoff");
  }

  /**
   * Rewrites a record a writer may have left disagreeing with its log (a `projections` member older than
   * any live writer's): the current status is reserved and committed like any transition, so a live
   * writer racing it either commits after it (and wins the record) or loses and retries.
   */
  async repairProjection(member: string): Promise<void> {
    const sessionId = sessionOfProjection(member);
    try {
      await this.run(sessionId, (state) =>
        state.status === "deleted" ? unchanged(null) : change({ drafts: [], state: { status: state.status }, statuses: [], wake: false }, null),
      );
    } catch (err) {
      if (!isAppError(err, "not_found")) throw err;
    }
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

  /**
   * Ends a call that appended nothing after a stale attempt: the state has moved past every version this
   * call reserved, so writing it as it is now (guarded by its version) undoes them.
   */
  private async restore(sessionId: string, state: RuntimeState, reserved: string[]): Promise<void> {
    if (reserved.length === 0) return;
    if (state.status === "deleted" || (await this.write(sessionId, state.status, state.v))) {
      await this.intents.clearProjections(reserved);
    }
  }
}
