/** Planning an inbound batch: send rules, the `when_idle` queue, and answers to a waiting turn. Pure. */
import { newId } from "../../ids.js";
import { draft, type Draft, type InboundEvent, type Payload } from "./events.js";
import {
  newTurn,
  reject,
  resumedTurn,
  WAITING,
  type ActiveTurn,
  type PlanResult,
  type RuntimeState,
  type StatusChange,
  type ToolCall,
} from "./session-state.js";

/** The one event type whose payload a later event replaces: a long-running custom tool's `running` result, by its final one (below). */
export const REPLACED_PAYLOAD_TYPE = "user.custom_tool_result";

/** Plans an inbound batch (already schema-valid and obeying send rules 1 and 5). */
export function planInbound(state: RuntimeState, sessionId: string, events: InboundEvent[], delivery: "immediate" | "when_idle", now: string): PlanResult {
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
        if (event.result === "deny") call.reason = `the user denied the tool ${call.name}${event.reason ? `: ${event.reason}` : ""}`;
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
            {
              ...draft(
                sessionId,
                newId("evt"),
                { type: "session.tool_updated", tool_use_id: event.tool_use_id, event_id: earlier.eventId, payload: event },
                { turnId: started.turn.id, now },
              ),
              liveOnly: true,
              replacementOf: earlier.eventId,
            },
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

  const resumed = resumedTurn(status, turn, sessionId, now);
  if (resumed) {
    status = "running";
    turn = resumed.turn;
    drafts.push(resumed.running);
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
