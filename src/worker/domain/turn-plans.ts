/** A worker's steps of a turn, as plans: take it up, record its output, pause it, end it, start the next queued prompt. Pure. */
import { newId } from "../../ids.js";
import { draft, type Draft, type StopReason, type Usage } from "../../sessions/domain/events.js";
import type { TokenUsage } from "../../providers/domain/model-types.js";
import { addedTokens, addedUp } from "../../sessions/domain/usage-total.js";
import { resultDraft } from "./tool-calls.js";
import {
  blockingEventIds,
  newTurn,
  resumedTurn,
  type Plan,
  type RuntimeState,
  type Spent,
  type StatusChange,
  type ToolCall,
} from "../../sessions/domain/session-state.js";

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

/** What the turn has spent, with the tokens of a tool's own model calls added (not counted as the turn's calls). */
export function withToolTokens(spent: Spent | undefined, more: TokenUsage): Spent {
  const base: Spent = spent ?? {
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 },
    calls: 0,
    last: { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 },
    contextMax: 0,
  };
  return { ...base, tokens: addedTokens(base.tokens, more) };
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

/** How a turn ends. */
export interface TurnEnd {
  output: Draft[];
  stop: StopReason;
  /** What the turn spent, added to the session's total. */
  usage?: Usage;
  /** The record's total, for a state that keeps none yet (see `RuntimeState.usage`). */
  recorded?: Usage | null;
}

/** Whether ending a turn needs the record's usage total first: the state keeps none to add to. */
export const needsRecordedUsage = (state: RuntimeState, end: TurnEnd): boolean =>
  end.usage !== undefined && state.usage === undefined && end.recorded === undefined;

/**
 * The end of a turn: its output, then `session.status_idle` (with the turn's usage, which the session's
 * total takes in the same commit, so a turn is counted exactly once); its inbound events become processed.
 */
export function planTurnEnd(state: RuntimeState, sessionId: string, end: TurnEnd, now: string): Plan {
  const { output, stop, usage } = end;
  const turnId = state.turn?.id ?? null;
  const idle = draft(
    sessionId,
    newId("evt"),
    { type: "session.status_idle", stop_reason: stop },
    { turnId, status: "complete", now, ...(usage ? { usage } : {}) },
  );
  const statuses: StatusChange[] = (state.turn?.events ?? []).map((eventId) => ({ eventId, status: "processed", processedAt: now }));
  const total = usage ? { usage: addedUp((state.usage === undefined ? end.recorded : state.usage) ?? null, usage) } : {};
  return {
    drafts: [...output, idle],
    state: { status: "idle", turn: null, interrupt: null, ...total },
    statuses,
    wake: state.queue.length > 0,
  };
}

/**
 * Custom tool calls that got no result (not even `running`) within the kickoff time fail with a tool
 * error, so the turn goes on without them; a turn paused only for them resumes. Null when none is due.
 */
export function planKickoffExpired(state: RuntimeState, sessionId: string, now: string, kickoffMs: number): Plan | null {
  const turn = state.turn;
  const due = (c: ToolCall) => c.state === "custom" && c.customSince !== undefined && Date.parse(c.customSince) + kickoffMs <= Date.parse(now);
  if (!turn || !turn.calls.some(due)) return null;
  const ctx = { sessionId, turnId: turn.id, now };
  const drafts: Draft[] = [];
  const calls = turn.calls.map((c) => {
    if (!due(c)) return c;
    const seconds = Math.round(kickoffMs / 1000);
    drafts.push(
      resultDraft(ctx, c, false, `The custom tool ${c.name} reported no result (not even running) within ${seconds} s; the turn goes on without it.`),
    );
    return { ...c, state: "done" as const };
  });
  const resumed = resumedTurn(state.status, { ...turn, calls }, sessionId, now);
  if (!resumed) return { drafts, state: { turn: { ...turn, calls } }, statuses: [], wake: false };
  return { drafts: [...drafts, resumed.running], state: { status: "running", turn: resumed.turn }, statuses: [], wake: true };
}
