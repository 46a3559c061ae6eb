/** A worker's steps of a turn, as plans: take it up, record its output, pause it, end it, start the next queued prompt. Pure. */
import { newId } from "../ids.js";
import { draft, type Draft, type StopReason, type Usage } from "./events.js";
import { blockingEventIds, newTurn, type Plan, type RuntimeState, type Spent, type StatusChange, type ToolCall } from "./session-state.js";

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
