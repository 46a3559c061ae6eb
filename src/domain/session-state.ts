/**
 * The session state machine, as pure functions over the runtime state kept in Redis. Each function
 * returns a plan: the envelopes to append, the state to write and the event statuses to change. The
 * event log applies a plan atomically, only if the state is still the version the plan was made from.
 */
import { newId } from "../ids.js";
import { draft, type Draft, type EventStatus, type InboundEvent, type StopReason, type Usage } from "./events.js";

export type SessionStatus = "idle" | "running" | "waiting_on_human" | "archived";

export interface ActiveTurn {
  id: string;
  /** Inbound events this turn answers; they become `processed` when it ends. */
  events: string[];
  startedAt: string;
  /** How many workers have started running this turn; more than one means it was recovered. */
  attempts: number;
}

export interface RuntimeState {
  /** Version for compare-and-set; every applied plan increments it. */
  v: number;
  status: SessionStatus | "deleted";
  turn: ActiveTurn | null;
  /** `when_idle` prompts waiting for the turn to end, oldest first (event ids). */
  queue: string[];
  /** Steers not yet seen by a model call (event ids). */
  steers: string[];
  interrupt: string | null;
}

export const INITIAL_STATE: RuntimeState = { v: 0, status: "idle", turn: null, queue: [], steers: [], interrupt: null };

export interface StatusChange {
  eventId: string;
  status: EventStatus;
  processedAt: string | null;
  /** Set when a queued prompt is taken up by a turn. */
  turnId?: string;
}

export interface Plan {
  drafts: Draft[];
  state: Partial<Omit<RuntimeState, "v">>;
  statuses: StatusChange[];
  /** Whether a worker must look at the session. */
  wake: boolean;
}

export type PlanRejection = { code: "invalid_state" | "no_active_turn" | "validation_error"; message: string };
export type PlanResult = { ok: true; plan: Plan; persisted: Draft[] } | { ok: false; rejection: PlanRejection };

/** Whether an inbound event may begin a turn. */
export function startsTurn(e: InboundEvent): boolean {
  return e.type === "user.message";
}

function startTurn(sessionId: string, messageIds: string[], now: string): { turn: ActiveTurn; running: Draft } {
  const turn: ActiveTurn = { id: newId("turn"), events: messageIds, startedAt: now, attempts: 0 };
  const running = draft(sessionId, newId("evt"), { type: "session.status_running" }, { turnId: turn.id, status: "complete", now });
  return { turn, running };
}

/** Plans an inbound batch (already schema-valid and obeying send rules 1 and 5). */
export function planInbound(
  state: RuntimeState,
  sessionId: string,
  events: InboundEvent[],
  delivery: "immediate" | "when_idle",
  now: string,
): PlanResult {
  if (state.status === "archived" || state.status === "deleted") {
    return { ok: false, rejection: { code: "invalid_state", message: "the session is archived and accepts no events" } };
  }
  const drafts: Draft[] = [];
  const persisted: Draft[] = [];
  const next: Partial<RuntimeState> = {};
  let status = state.status;
  let turn = state.turn;
  const queue = [...state.queue];
  const steers = [...state.steers];
  let wake = false;

  for (const event of events) {
    const id = newId("evt");
    switch (event.type) {
      case "user.message": {
        if (status === "idle") {
          const started = startTurn(sessionId, [id], now);
          turn = started.turn;
          status = "running";
          const msg = draft(sessionId, id, event, { turnId: turn.id, status: "received", now });
          drafts.push(msg, started.running);
          persisted.push(msg);
          wake = true;
        } else if (delivery === "when_idle") {
          const msg = draft(sessionId, id, event, { status: "queued", now });
          drafts.push(msg);
          persisted.push(msg);
          queue.push(id);
          wake = true;
        } else {
          return {
            ok: false,
            rejection: { code: "invalid_state", message: "a turn is running; wait for it to end, or send the prompt with delivery when_idle" },
          };
        }
        break;
      }
      case "user.steer": {
        const d = draft(sessionId, id, event, { turnId: turn?.id ?? null, status: "received", now });
        drafts.push(d);
        persisted.push(d);
        steers.push(id);
        break;
      }
      case "user.interrupt": {
        const live = status === "running" || status === "waiting_on_human";
        const d = live
          ? draft(sessionId, id, event, { turnId: turn?.id ?? null, status: "received", now })
          : draft(sessionId, id, event, { status: "processed", processedAt: now, now });
        drafts.push(d);
        persisted.push(d);
        if (live && turn) {
          next.interrupt = turn.id;
          turn = { ...turn, events: [...turn.events, id] };
        }
        break;
      }
      default:
        return {
          ok: false,
          rejection: { code: "no_active_turn", message: `the session is not waiting for a ${event.type.slice(5)} event` },
        };
    }
  }

  if (status !== state.status) next.status = status;
  if (turn !== state.turn) next.turn = turn;
  if (queue.length !== state.queue.length) next.queue = queue;
  if (steers.length !== state.steers.length) next.steers = steers;
  return { ok: true, plan: { drafts, state: next, statuses: [], wake }, persisted };
}

/** At a turn end with prompts waiting: the oldest starts its own turn. */
export function planNextQueued(state: RuntimeState, sessionId: string, now: string): Plan | null {
  if (state.status !== "idle" || state.queue.length === 0) return null;
  const [first, ...rest] = state.queue;
  const started = startTurn(sessionId, [first!], now);
  return {
    drafts: [started.running],
    state: { status: "running", turn: started.turn, queue: rest },
    statuses: [{ eventId: first!, status: "received", processedAt: null, turnId: started.turn.id }],
    wake: false,
  };
}

/** A worker takes up the active turn: counts the attempt so a crashed turn is not retried forever. */
export function planTurnAttempt(state: RuntimeState): Plan | null {
  if (!state.turn || state.status !== "running") return null;
  return { drafts: [], state: { turn: { ...state.turn, attempts: state.turn.attempts + 1 } }, statuses: [], wake: false };
}

/** Steers consumed by a model call become processed and leave the state. */
export function planSteersConsumed(state: RuntimeState, consumed: string[], now: string): Plan {
  return {
    drafts: [],
    state: { steers: state.steers.filter((id) => !consumed.includes(id)) },
    statuses: consumed.map((eventId) => ({ eventId, status: "processed", processedAt: now })),
    wake: false,
  };
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
  const handled = [...(state.turn?.events ?? [])];
  const statuses: StatusChange[] = handled.map((eventId) => ({ eventId, status: "processed", processedAt: now, ...(turnId ? { turnId } : {}) }));
  return {
    drafts: [...output, idle],
    state: { status: "idle", turn: null, interrupt: null },
    statuses,
    wake: state.queue.length > 0,
  };
}
