/**
 * The session state machine, as pure functions over the runtime state kept in Redis. Each function
 * returns a plan: the envelopes to append, the state to write and the event statuses to change. The
 * session transition function (`src/sessions/transitions.ts`) applies a plan atomically, only
 * if the state is still the version the plan was made from. Inbound events are planned in
 * `inbound-plan.ts`, a worker's steps of a turn in `turn-plans.ts`; archive and delete here.
 */
import { newId } from "../../ids.js";
import { draft, type Draft, type EventStatus, type InboundEvent, type Payload, type Usage } from "./events.js";
import type { ToolKind } from "../../worker/domain/tool-permissions.js";
import type { ThreadSpend } from "./usage-total.js";
import type { sessionSchema } from "../../../schemas/session.js";

export type SessionStatus = (typeof sessionSchema.properties.status.enum)[number];

/** Where one tool call of the current model call stands. */
export type CallState =
  | "ask" // approval requested; waits for user.approval_response
  | "approved" // approval given; the worker emits the tool-use event and runs it
  | "denied" // refused by the user; the worker emits a denial result (policy denials are written at once)
  | "executing" // its tool-use event is out; the worker runs it (again, if a worker died running it)
  | "custom" // waits for user.custom_tool_result
  | "clarify" // waits for user.clarify_result
  | "thread" // delegated to a child thread; waits for its answer (`thread`)
  | "done";

/**
 * A delegation's child thread as the parent last saw it. A child that changes stirs its parent
 * (`stirs` + 1, with a wake-up); the parent's worker then reads the child and records what it saw up
 * to (`seen`), so a stir that comes while it reads is never lost.
 */
export interface ThreadWait {
  id: string;
  /** The child's events waiting for the human (its approvals, custom tool calls, questions): the parent waits on them too. */
  asks: string[];
  stirs: number;
  seen: number;
}

export interface ToolCall {
  /** Our id for the call: the tool-use event's id, and the id the model sees. */
  id: string;
  name: string;
  input: unknown;
  kind: ToolKind | "clarify";
  state: CallState;
  approvalId?: string;
  /** When a custom call began waiting for its first result: the kickoff deadline counts from here. */
  customSince?: string;
  scope?: "once" | "session" | "always";
  reason?: string;
  /** A delegation's child thread (state `thread`). */
  thread?: ThreadWait;
}

export interface ActiveTurn {
  id: string;
  /** Inbound events this turn answers; they become `processed` when it ends. */
  events: string[];
  startedAt: string;
  /** How many workers have started running this turn; more than one means it was recovered. */
  attempts: number;
  /** The tool calls of the current model call. */
  calls: ToolCall[];
  /** Tokens and model calls spent so far: a turn paused for the human resumes its count. */
  spent?: Spent;
}

export interface Spent {
  tokens: { input: number; output: number; cache_read: number; cache_write: number; reasoning: number };
  calls: number;
  /** The last call's tokens (they measure the context window) and the model's window size. */
  last: Spent["tokens"];
  contextMax: number;
  /** What the turn's child threads spent (delegation): reported with the turn's usage, debited by the threads themselves. */
  threads?: ThreadSpend;
}

/** A custom tool that reported `running`: its later final result replaces this event. */
export interface LongRunning {
  eventId: string;
  tool: string;
}

/**
 * The runtime state: a snapshot written atomically with the log by every plan, so deciding the next step
 * needs no replay. What it holds is only what the log cannot answer cheaply (the turn in progress and
 * where each of its calls stands, the queue, grants, long-running calls). The conversation itself is
 * never here: a turn's transcript is folded from the log (`transcript-fold.ts`), and workers keep it
 * between calls.
 */
export interface RuntimeState {
  /** Version for compare-and-set; every applied plan increments it. */
  v: number;
  status: SessionStatus | "deleted";
  turn: ActiveTurn | null;
  /** `when_idle` prompts waiting for the turn to end, oldest first (event ids). */
  queue: string[];
  interrupt: string | null;
  /** Tools approved with scope `session`. */
  grants: string[];
  longRunning: Record<string, LongRunning>;
  /**
   * Every ended turn's usage added up, changed by the turn end's own commit (null before the first).
   * Absent in a session created before the total was kept here: its record holds it until a turn ends.
   */
  usage?: Usage | null;
  /** A compaction the caller asked for, not yet done (`compaction.ts`). */
  compact?: boolean;
}

export const INITIAL_STATE: RuntimeState = { v: 0, status: "idle", turn: null, queue: [], interrupt: null, grants: [], longRunning: {}, usage: null };

export interface StatusChange {
  eventId: string;
  status: EventStatus;
  processedAt: string | null;
  /** Set when a queued prompt is taken up by a turn. */
  turnId?: string;
  /** A replacement payload: a final long-running tool result replacing its `running` one. */
  payload?: Payload;
}

export interface Plan {
  drafts: Draft[];
  state: Partial<Omit<RuntimeState, "v">>;
  statuses: StatusChange[];
  /** Whether a worker must look at the session. */
  wake: boolean;
}

export type PlanRejection = { code: "invalid_state" | "no_active_turn"; message: string };
export type PlanResult =
  { ok: true; plan: Plan; persisted: Draft[]; replaced?: { eventId: string; payload: Payload } } | { ok: false; rejection: PlanRejection };

export const WAITING: ReadonlySet<CallState> = new Set(["ask", "custom", "clarify"]);

/** Whether an inbound event may begin a turn. */
export function startsTurn(e: InboundEvent): boolean {
  return e.type === "user.message";
}

/** Whether a call waits for the human: its own question, or one its child thread asks. */
export const waitsOnHuman = (c: ToolCall): boolean => WAITING.has(c.state) || (c.state === "thread" && (c.thread?.asks.length ?? 0) > 0);

/** A delegation's child changed since its parent last looked. */
export const stirred = (c: ToolCall): boolean => c.state === "thread" && c.thread !== undefined && c.thread.stirs > c.thread.seen;

/** The events a paused turn waits on, in the order the model asked (a child thread's, by their ids in the child). */
export function blockingEventIds(turn: ActiveTurn): string[] {
  return turn.calls.filter(waitsOnHuman).flatMap((c) => (c.state === "ask" ? [c.approvalId!] : c.state === "thread" ? c.thread!.asks : [c.id]));
}

/** A turn with nothing to do but wait for its child threads to change. */
export function waitsOnThreadsOnly(turn: ActiveTurn): boolean {
  const open = turn.calls.filter((c) => c.state !== "done");
  return open.length > 0 && open.every((c) => c.state === "thread" && !stirred(c) && !waitsOnHuman(c));
}

/**
 * A paused turn whose last question is answered resumes (as `running`, woken for a worker). The worker
 * that paused it finished its run cleanly, so the attempt count starts again: only workers that die
 * mid-run count against it. Null when the turn still waits on something, or is not paused.
 */
export function resumedTurn(
  status: RuntimeState["status"],
  turn: ActiveTurn | null,
  sessionId: string,
  now: string,
): { turn: ActiveTurn; running: Draft } | null {
  if (status !== "waiting_on_human" || !turn || blockingEventIds(turn).length > 0) return null;
  return {
    turn: { ...turn, attempts: 0 },
    running: draft(sessionId, newId("evt"), { type: "session.status_running" }, { turnId: turn.id, status: "complete", now }),
  };
}

export function newTurn(sessionId: string, events: string[], now: string): { turn: ActiveTurn; running: Draft } {
  const turn: ActiveTurn = { id: newId("turn"), events, startedAt: now, attempts: 0, calls: [] };
  const running = draft(sessionId, newId("evt"), { type: "session.status_running" }, { turnId: turn.id, status: "complete", now });
  return { turn, running };
}

export function reject(code: PlanRejection["code"], message: string): PlanResult {
  return { ok: false, rejection: { code, message } };
}

const BUSY: ReadonlySet<RuntimeState["status"]> = new Set(["running", "waiting_on_human"]);
const NO_CHANGE: Plan = { drafts: [], state: {}, statuses: [], wake: false };

/** Archive: idempotent; refused while a turn runs or waits. `null` plan: nothing to change. */
export function planArchive(state: RuntimeState): PlanResult | null {
  if (state.status === "archived") return null;
  if (state.status === "deleted") return reject("invalid_state", "the session is being deleted");
  if (BUSY.has(state.status)) return reject("invalid_state", `the session is ${state.status}; it can be archived once idle`);
  return { ok: true, plan: { ...NO_CHANGE, state: { status: "archived" } }, persisted: [] };
}

/** Delete, first step: the state is marked deleted so no event slips in while the keys go. */
export function planDelete(state: RuntimeState): PlanResult | null {
  if (state.status === "deleted") return null;
  if (BUSY.has(state.status)) return reject("invalid_state", `the session is ${state.status}; it can be deleted once idle`);
  return { ok: true, plan: { ...NO_CHANGE, state: { status: "deleted" } }, persisted: [] };
}
