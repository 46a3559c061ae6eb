/**
 * The one owner of a session state change. Given the session, a planning function (pure: state → plan)
 * and, for a worker, its fencing token, it plans from the runtime state and commits the plan in one
 * script (`append-events-11.lua`) that checks the state fields the plan read are unchanged (not the
 * whole state's version: writers of different fields never refuse each other), appends, counts the
 * allowance the caller names, marks the intents and publishes the wake-up, all atomically. A refused
 * commit answers with the state as it now is, so a retry needs no read; retries are bounded, with a
 * short jittered backoff once they repeat.
 *
 * Transitions of one session in one process run in its lane (`session-lanes.ts`), each planned from
 * the state the previous one committed: concurrent writers in one process are served in turn, never
 * refused; only another process's write can make a commit stale.
 *
 * The MongoDB record's status follows the log, after the answer (`status-projector.ts`): a commit that
 * changes the status marks its writer's `projections` member in the same script, and the mark is
 * cleared once the record is written. A process that dies first, or a write that fails, leaves the mark
 * to the recovery sweep (`repairProjection`). Readers never see the lag: `GET` reads Redis, and a list
 * matches the sessions whose records are being changed (the marked ones) by their status in Redis.
 */
import { randomBytes } from "node:crypto";
import { INITIAL_STATE, type Plan, type PlanResult, type RuntimeState } from "./domain/session-state.js";
import { AppError, notFound } from "../errors.js";
import { allowanceExhausted } from "./redis/allowances.js";
import { encodeState, type Appended, type Commit, type EventAppender } from "./redis/event-appender.js";
import { doneBefore, markValue, onceField, type DoneBefore, type Once } from "../idempotency/index.js";
import { type EventLog } from "./redis/event-log.js";
import { snapshotOf, type Snapshot } from "./redis/log-entries.js";
import { sessionOfProjection, type Intents } from "./redis/intents.js";
import { trackReads } from "./read-set.js";
import { SessionLanes, type Lane } from "./session-lanes.js";
import type { StateProjection } from "./store/sessions.js";
import type { StatusProjection, StatusProjector } from "./status-projector.js";

type Accepted = Extract<PlanResult, { ok: true }>;

/** What a planning function decided: a plan to apply, or nothing to change; `value` is handed back. */
export type Planned<T> = { plan: Plan; value: T } | { plan: null; value: T };

export const change = <T>(plan: Plan, value: T): Planned<T> => ({ plan, value });
export const unchanged = <T>(value: T): Planned<T> => ({ plan: null, value });

/** Where the events `ids` are among the plan's durable drafts (the order their sequences follow). */
function places(plan: Plan, ids: string[]): number[] {
  const durable = plan.drafts.filter((d) => !d.liveOnly).map((d) => d.id);
  return ids.map((id) => durable.indexOf(id)).filter((at) => at >= 0);
}

/** A domain planner's answer as a step: its plan (handing back the result), nothing to do, or its refusal as an application error. */
export function decided(result: PlanResult | null): Planned<Accepted | null> {
  if (!result) return unchanged(null);
  if (!result.ok) throw new AppError(result.rejection.code, result.rejection.message);
  return change(result.plan, result);
}

export interface TransitionOptions<T = unknown> {
  /** The worker's fencing token (its lock's value); absent for API pods. */
  fence?: string;
  /** The state as the caller already read it (with its other reads, in one round trip); null: no state. */
  from?: Snapshot | null;
  /** Points the commit counts; it is refused as a whole (`rate_limited`) when the allowance has no room. */
  allowance?: Commit["allowance"];
  /** The request's Idempotency-Key, committed with the plan; `answers` names the events that answer the request. */
  once?: { request: Once; answers: (value: T) => string[] };
}

export interface Transition<T> {
  value: T;
  /** What the append wrote; null when the plan changed nothing. */
  applied: Appended | null;
  /** The state the final plan was made from. */
  state: RuntimeState;
  /** The state as this transition left it: after its commit, or as read when it changed nothing (a later read's stand-in). */
  known: Snapshot;
  /** Set instead of `applied` when a commit under the same Idempotency-Key was made before. */
  doneBefore?: DoneBefore;
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

/**
 * What of a plan's state the record keeps, as of `version`: the status it sets (a deleted session's
 * record is removed) and the usage total it sets. Only what the plan itself wrote: the rest of the
 * snapshot it was made from may be older than the state it committed onto. Null: nothing to project.
 */
function projectionOf(state: Plan["state"], version: number): StateProjection | null {
  const status = state.status === undefined || state.status === "deleted" ? undefined : state.status;
  if (status === undefined && state.usage === undefined) return null;
  return { ...(status ? { status: { version, status } } : {}), ...(state.usage === undefined ? {} : { usage: { version, usage: state.usage } }) };
}

const STATE_FIELDS: ReadonlySet<string> = new Set(Object.keys(INITIAL_STATE));

/** The later of two snapshots of one session (by state version). */
function later(a: Snapshot | null | undefined, b: Snapshot | null): Snapshot | null | undefined {
  if (!b || a === undefined) return b ?? a;
  if (a === null) return a;
  return b.state.v > a.state.v ? b : a;
}

export class SessionTransitions {
  private readonly lanes = new SessionLanes();

  constructor(
    private readonly log: EventLog,
    private readonly appender: EventAppender,
    private readonly intents: Intents,
    private readonly projector: StatusProjector,
    private readonly records: StatusProjection,
  ) {}

  run<T>(sessionId: string, planner: (state: RuntimeState) => Planned<T>, opts: TransitionOptions<T> = {}): Promise<Transition<T>> {
    return this.lanes.run(sessionId, (lane) => this.commit(sessionId, planner, opts, lane));
  }

  private async commit<T>(sessionId: string, planner: (state: RuntimeState) => Planned<T>, opts: TransitionOptions<T>, lane: Lane): Promise<Transition<T>> {
    let snapshot = later(opts.from, lane.known) ?? (await this.log.snapshot(sessionId));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 1) await backoff(attempt);
      if (!snapshot) throw notFound("session");
      const { view, read } = trackReads(snapshot.state);
      const planned = planner(view);
      if (!planned.plan) return { value: planned.value, applied: null, state: snapshot.state, known: snapshot };
      const plan = planned.plan;
      const changesRecord = projectionOf(plan.state, 0) !== null;
      const projection = changesRecord ? `${sessionId} ${randomBytes(6).toString("base64url")}` : null;
      const fields = snapshot.fields;
      const result = await this.appender.apply(sessionId, plan, {
        reads: [...read].filter((f) => STATE_FIELDS.has(f)).map((f) => [f, fields[f] ?? null]),
        fence: opts.fence ?? "",
        projection,
        allowance: opts.allowance,
        once: opts.once && { field: onceField(opts.once.request), value: markValue(opts.once.request, places(plan, opts.once.answers(planned.value))) },
      });
      if (result.ok) {
        const known = snapshotOf({ ...fields, ...encodeState(plan.state), v: String(result.version) })!;
        lane.known = known;
        if (changesRecord) this.projector.project(sessionId, projectionOf(plan.state, result.version)!, projection!);
        return { value: planned.value, applied: result, state: snapshot.state, known };
      }
      switch (result.reason) {
        case "missing":
          throw notFound("session");
        case "fenced":
          throw new AppError("lock_lost", "the session's turn lock was taken over by another worker");
        case "rate_limited":
          throw allowanceExhausted(opts.allowance!.kind, result.standing);
        case "done":
          return { value: planned.value, applied: null, state: snapshot.state, known: snapshot, doneBefore: doneBefore(result.mark) };
        case "stale":
          snapshot = lane.known = snapshotOf(result.fields);
      }
    }
    throw new AppError("busy", "the session is changing too often to apply this change right now; retry with exponential backoff");
  }

  /**
   * Rewrites a record a writer may have left behind its log (a `projections` member older than any live
   * writer's) from the runtime state as it is now; the record's version guard keeps a live writer's
   * later write from being undone. A failed write leaves the mark for the next sweep.
   */
  async repairProjection(member: string): Promise<void> {
    const sessionId = sessionOfProjection(member);
    const state = await this.log.existingState(sessionId);
    if (state && state.status !== "deleted") {
      const usage = state.usage === undefined ? {} : { usage: { version: state.v, usage: state.usage } };
      await this.records.projectState(sessionId, { status: { version: state.v, status: state.status }, ...usage });
    }
    await this.intents.clearProjections([member]);
  }
}
