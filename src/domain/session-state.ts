/**
 * The session state machine, as pure functions over the runtime state kept in Redis. Each function
 * returns a plan: the envelopes to append, the state to write and the event statuses to change. The
 * event log applies a plan atomically, only if the state is still the version the plan was made from.
 */
import { newId } from "../ids.js";
import { draft, type Draft, type EventStatus, type InboundEvent, type Payload, type StopReason, type Usage } from "./events.js";
import type { ToolKind } from "./tool-permissions.js";

export type SessionStatus = "idle" | "running" | "waiting_on_human" | "archived";

/** Where one tool call of the current model call stands. */
export type CallState =
  | "ask" // approval requested; waits for user.approval_response
  | "approved" // approval given; the worker emits the tool-use event and runs it
  | "denied" // refused by the user; the worker emits a denial result (policy denials are written at once)
  | "executing" // its tool-use event is out; the worker runs it (again, if a worker died running it)
  | "custom" // waits for user.custom_tool_result
  | "clarify" // waits for user.clarify_result
  | "done";

export interface ToolCall {
  /** Our id for the call: the tool-use event's id, and the id the model sees. */
  id: string;
  name: string;
  input: unknown;
  kind: ToolKind | "clarify";
  state: CallState;
  approvalId?: string;
  scope?: "once" | "session" | "always";
  reason?: string;
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
}

/** A custom tool that reported `running`: its later final result replaces this event. */
export interface LongRunning {
  eventId: string;
  tool: string;
}

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
}

export const INITIAL_STATE: RuntimeState = { v: 0, status: "idle", turn: null, queue: [], interrupt: null, grants: [], longRunning: {} };

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
  | { ok: true; plan: Plan; persisted: Draft[]; replaced?: { eventId: string; payload: Payload } }
  | { ok: false; rejection: PlanRejection };

const WAITING: ReadonlySet<CallState> = new Set(["ask", "custom", "clarify"]);

/** Whether an inbound event may begin a turn. */
export function startsTurn(e: InboundEvent): boolean {
  return e.type === "user.message";
}

/** The events a paused turn waits on, in the order the model asked. */
export function blockingEventIds(turn: ActiveTurn): string[] {
  return turn.calls.filter((c) => WAITING.has(c.state)).map((c) => (c.state === "ask" ? c.approvalId! : c.id));
}

function newTurn(sessionId: string, events: string[], now: string): { turn: ActiveTurn; running: Draft } {
  const turn: ActiveTurn = { id: newId("turn"), events, startedAt: now, attempts: 0, calls: [] };
  const running = draft(sessionId, newId("evt"), { type: "session.status_running" }, { turnId: turn.id, status: "complete", now });
  return { turn, running };
}

function reject(code: PlanRejection["code"], message: string): PlanResult {
  return { ok: false, rejection: { code, message } };
}

/** Plans an inbound batch (already schema-valid and obeying send rules 1 and 5). */
export function planInbound(
  state: RuntimeState,
  sessionId: string,
  events: InboundEvent[],
  delivery: "immediate" | "when_idle",
  now: string,
): PlanResult {
  if (state.status === "archived" || state.status === "deleted") return reject("invalid_state", "the session is archived and accepts no events");
  const drafts: Draft[] = [];
  const persisted: Draft[] = [];
  const statuses: StatusChange[] = [];
  let status = state.status;
  let turn: ActiveTurn | null = state.turn ? { ...state.turn, events: [...state.turn.events], calls: state.turn.calls.map((c) => ({ ...c })) } : null;
  const queue = [...state.queue];
  const grants = new Set(state.grants);
  const longRunning = { ...state.longRunning };
  let interrupt = state.interrupt;
  let replaced: { eventId: string; payload: Payload } | undefined;
  let wake = false;

  const keep = (d: Draft) => {
    drafts.push(d);
    persisted.push(d);
  };
  const startTurnWith = (eventIds: string[]) => {
    const started = newTurn(sessionId, eventIds, now);
    turn = started.turn;
    status = "running";
    wake = true;
    return started;
  };
  /** The call of the active turn that a response answers, if the turn waits on it. */
  const waitingCall = (match: (c: ToolCall) => boolean) => turn?.calls.find((c) => WAITING.has(c.state) && match(c));
  const answered = (d: Draft) => {
    keep(d);
    turn!.events.push(d.id);
  };

  for (const event of events) {
    const id = newId("evt");
    const live = status === "running" || status === "waiting_on_human";
    switch (event.type) {
      case "user.message": {
        // A when_idle prompt never overtakes older queued ones, even in the instant between turns.
        const behindQueue = delivery === "when_idle" && queue.length > 0;
        if (status === "idle" && !behindQueue) {
          const msg = draft(sessionId, id, event, { status: "received", now });
          const started = startTurnWith([id]);
          keep({ ...msg, turnId: started.turn.id });
          drafts.push(started.running);
        } else if (delivery === "when_idle") {
          keep(draft(sessionId, id, event, { status: "queued", now }));
          queue.push(id);
          wake = true;
        } else {
          return reject("invalid_state", "a turn is active; wait for it to end, or send the prompt with delivery when_idle");
        }
        break;
      }
      case "user.steer":
        // Pending until a model call includes it: the worker finds it in the log by its status.
        keep(draft(sessionId, id, event, { turnId: turn?.id ?? null, status: "received", now }));
        break;
      case "user.interrupt":
        if (live && turn) {
          answered(draft(sessionId, id, event, { turnId: turn.id, status: "received", now }));
          interrupt = turn.id;
          wake = true;
        } else {
          keep(draft(sessionId, id, event, { status: "processed", processedAt: now, now }));
        }
        break;
      case "user.approval_response": {
        const call = waitingCall((c) => c.state === "ask" && c.approvalId === event.approval_id);
        if (!call) return reject("no_active_turn", "the session is not waiting for this approval");
        call.state = event.result === "allow" ? "approved" : "denied";
        call.scope = event.scope ?? "once";
        if (event.result === "deny") call.reason = `the user denied the tool ${call.name}`;
        if (event.result === "allow" && call.scope !== "once") grants.add(call.name);
        answered(draft(sessionId, id, event, { turnId: turn!.id, status: "received", now }));
        break;
      }
      case "user.clarify_result": {
        const call = waitingCall((c) => c.state === "clarify" && c.id === event.request_id);
        if (!call) return reject("no_active_turn", "the session is not waiting for this clarification");
        call.state = "done";
        answered(draft(sessionId, id, event, { turnId: turn!.id, status: "received", now }));
        break;
      }
      case "user.custom_tool_result": {
        const call = waitingCall((c) => c.state === "custom" && c.id === event.tool_use_id);
        if (call) {
          call.state = "done";
          if (event.status === "running") longRunning[event.tool_use_id] = { eventId: id, tool: call.name };
          answered(draft(sessionId, id, event, { turnId: turn!.id, status: "received", now }));
          break;
        }
        if (event.status !== "completed" && event.status !== "failed") {
          return reject("no_active_turn", "the session is not waiting for a result of this tool call");
        }
        if (status !== "idle") return reject("invalid_state", "a final tool result starts a turn and needs an idle session");
        const earlier = longRunning[event.tool_use_id];
        if (earlier) {
          // Replaces the running result in history, tells live readers, and starts a turn with it.
          delete longRunning[event.tool_use_id];
          replaced = { eventId: earlier.eventId, payload: event };
          const started = startTurnWith([earlier.eventId]);
          statuses.push({ eventId: earlier.eventId, status: "received", processedAt: null, payload: event });
          drafts.push(
            { ...draft(sessionId, newId("evt"), { type: "session.tool_updated", tool_use_id: event.tool_use_id, event_id: earlier.eventId, payload: event }, { turnId: started.turn.id, now }), liveOnly: true },
            started.running,
          );
        } else {
          const msg = draft(sessionId, id, event, { status: "received", now });
          const started = startTurnWith([id]);
          keep({ ...msg, turnId: started.turn.id });
          drafts.push(started.running);
        }
        break;
      }
    }
  }

  // A paused turn whose last question is answered resumes. The worker that paused it finished its
  // run cleanly, so the attempt count starts again: only workers that die mid-run count against it.
  if (status === "waiting_on_human" && turn && blockingEventIds(turn).length === 0) {
    status = "running";
    turn.attempts = 0;
    drafts.push(draft(sessionId, newId("evt"), { type: "session.status_running" }, { turnId: turn.id, status: "complete", now }));
    wake = true;
  }

  const next: Partial<RuntimeState> = {};
  if (status !== state.status) next.status = status;
  if (turn !== state.turn) next.turn = turn;
  if (queue.length !== state.queue.length) next.queue = queue;
  if (interrupt !== state.interrupt) next.interrupt = interrupt;
  if (grants.size !== state.grants.length) next.grants = [...grants];
  if (Object.keys(longRunning).length !== Object.keys(state.longRunning).length) next.longRunning = longRunning;
  const result: PlanResult = { ok: true, plan: { drafts, state: next, statuses, wake }, persisted };
  if (replaced) result.replaced = replaced;
  return result;
}

/** At a turn end with prompts waiting: the oldest starts its own turn. */
export function planNextQueued(state: RuntimeState, sessionId: string, now: string): Plan | null {
  if (state.status !== "idle" || state.queue.length === 0) return null;
  const [first, ...rest] = state.queue;
  const started = newTurn(sessionId, [first!], now);
  return {
    drafts: [started.running],
    state: { status: "running", turn: started.turn, queue: rest },
    statuses: [{ eventId: first!, status: "received", processedAt: null, turnId: started.turn.id }],
    wake: false,
  };
}

/** A worker takes up the active turn: counts the attempt so a crashed turn is not retried forever. */
export function planTurnAttempt(state: RuntimeState): Plan | null {
  if (!state.turn) return null;
  return { drafts: [], state: { turn: { ...state.turn, attempts: state.turn.attempts + 1 } }, statuses: [], wake: false };
}

/** Steers a model call has answered with become processed. */
export function planSteersConsumed(consumed: string[], now: string): Plan {
  return { drafts: [], state: {}, statuses: consumed.map((eventId) => ({ eventId, status: "processed", processedAt: now })), wake: false };
}

/** Output of a step of the turn, with the calls as they then stand (and what the turn has spent). */
export function planStep(state: RuntimeState, output: Draft[], calls: ToolCall[], spent?: Spent): Plan {
  return { drafts: output, state: { turn: { ...state.turn!, calls, ...(spent ? { spent } : {}) } }, statuses: [], wake: false };
}

/** The turn waits for the human: the request events are out; now `session.status_idle` with requires_action. */
export function planPause(state: RuntimeState, sessionId: string, now: string): Plan {
  const idle = draft(
    sessionId,
    newId("evt"),
    { type: "session.status_idle", stop_reason: { type: "requires_action", event_ids: blockingEventIds(state.turn!) } },
    { turnId: state.turn!.id, status: "complete", now },
  );
  return { drafts: [idle], state: { status: "waiting_on_human" }, statuses: [], wake: false };
}

/** The end of a turn: its output, then `session.status_idle`; inbound events of the turn become processed. */
export function planTurnEnd(
  state: RuntimeState,
  sessionId: string,
  output: Draft[],
  stopReason: StopReason,
  usage: Usage | undefined,
  now: string,
): Plan {
  const turnId = state.turn?.id ?? null;
  const idle = draft(sessionId, newId("evt"), { type: "session.status_idle", stop_reason: stopReason }, { turnId, status: "complete", now, ...(usage ? { usage } : {}) });
  const statuses: StatusChange[] = (state.turn?.events ?? []).map((eventId) => ({ eventId, status: "processed", processedAt: now }));
  return {
    drafts: [...output, idle],
    state: { status: "idle", turn: null, interrupt: null },
    statuses,
    wake: state.queue.length > 0,
  };
}
