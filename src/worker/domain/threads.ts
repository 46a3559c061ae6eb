/**
 * Delegation's steps, as plans over the parent's runtime state: a call opens a child thread, a child that
 * changed stirs its parent, and the parent records what it saw of the child (working, asking the human,
 * or answered). Pure; `src/worker/delegations.ts` reads the child and applies them.
 */
import { newId } from "../../ids.js";
import { draft, textBlocks, type Usage } from "../../sessions/domain/events.js";
import type { TokenUsage } from "../../providers/domain/model-types.js";
import { addedTokens } from "../../sessions/domain/usage-total.js";
import {
  blockingEventIds,
  resumedTurn,
  type ActiveTurn,
  type Plan,
  type RuntimeState,
  type Spent,
  type ToolCall,
} from "../../sessions/domain/session-state.js";
import { planPause } from "./turn-plans.js";
import { resultDraft, type TurnContext } from "./tool-calls.js";

/** How deep threads nest: a thread at this depth cannot delegate further. */
export const MAX_THREAD_DEPTH = 3;
/** Child threads one turn may have open at once. */
export const MAX_OPEN_THREADS = 4;

/** What a child thread shows its parent. */
export type ThreadView = { kind: "working" } | { kind: "asks"; ids: string[] } | { kind: "answered"; ok: boolean; text: string; usage: Usage | null };

/** The child thread a delegation call opens: named after the call, so a worker retrying the call finds it. */
export const threadIdOf = (callId: string) => `ses_${callId.slice(callId.indexOf("_") + 1)}`;

/** Why this call may not open a thread now; null when it may. `depth`: the delegating session's (0 at the top). */
export function delegationRefusal(depth: number, turn: ActiveTurn): string | null {
  if (depth >= MAX_THREAD_DEPTH) return `delegation refused: threads nest at most ${MAX_THREAD_DEPTH} deep, and this one is at depth ${depth}`;
  const open = turn.calls.filter((c) => c.state === "thread").length;
  if (open >= MAX_OPEN_THREADS) return `delegation refused: a turn may have at most ${MAX_OPEN_THREADS} threads open at once; wait for one to answer`;
  return null;
}

const withCall = (state: RuntimeState, call: ToolCall, extra: Partial<ActiveTurn> = {}): ActiveTurn => ({
  ...state.turn!,
  ...extra,
  calls: state.turn!.calls.map((c) => (c.id === call.id ? call : c)),
});

/** The call's thread is open and holds its message: `agent.thread_message_sent`, and the call waits on it, stirred so the parent looks at once. */
export function planThreadOpened(state: RuntimeState, ctx: TurnContext, call: ToolCall, threadId: string, message: string): Plan {
  const sent = draft(
    ctx.sessionId,
    newId("evt"),
    { type: "agent.thread_message_sent", thread_id: threadId, tool_use_id: call.id, content: textBlocks(message) },
    { turnId: ctx.turnId, status: "complete", now: ctx.now },
  );
  const waiting: ToolCall = { ...call, state: "thread", thread: { id: threadId, asks: [], stirs: 1, seen: 0 } };
  return { drafts: [sent], state: { turn: withCall(state, waiting) }, statuses: [], wake: false };
}

/** A child changed: the parent's call waiting on it is stirred, and a worker woken. Null when no call of the active turn waits on it. */
export function planThreadStirred(state: RuntimeState, threadId: string): Plan | null {
  const call = state.turn?.calls.find((c) => c.state === "thread" && c.thread?.id === threadId);
  if (!call?.thread) return null;
  const stirredCall: ToolCall = { ...call, thread: { ...call.thread, stirs: call.thread.stirs + 1 } };
  return { drafts: [], state: { turn: withCall(state, stirredCall) }, statuses: [], wake: true };
}

/** What the turn has spent, with a child thread's turn added (its tokens and cost, apart from the turn's own calls). */
export function withThreadUsage(spent: Spent | undefined, usage: Usage): Spent {
  const zero: TokenUsage = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };
  const base: Spent = spent ?? { tokens: zero, calls: 0, last: zero, contextMax: 0 };
  const threads = base.threads ?? { tokens: zero, calls: 0, costUsd: 0 };
  const tokens = { input: usage.input, output: usage.output, cache_read: usage.cache_read, cache_write: usage.cache_write, reasoning: usage.reasoning };
  return {
    ...base,
    threads: { tokens: addedTokens(threads.tokens, tokens), calls: threads.calls + usage.calls, costUsd: threads.costUsd + (usage.cost_usd ?? 0) },
  };
}

/**
 * The parent records what it saw of the child as of `seen` stirs. An answer settles the call
 * (`agent.thread_message_received`, then the tool result the model reads, the child's usage added to the
 * turn's); questions make the parent wait on them too. A parent waiting for the human resumes once
 * nothing blocks it, or names the child's new questions. Null when the call no longer waits, or a newer
 * stir came while the child was read (the parent reads it again).
 */
export function planThreadSeen(state: RuntimeState, ctx: TurnContext, callId: string, seen: number, view: ThreadView): Plan | null {
  const call = state.turn?.calls.find((c) => c.id === callId && c.state === "thread");
  if (!call?.thread || call.thread.stirs !== seen) return null;
  const drafts = [];
  let next: ToolCall;
  let spent = state.turn!.spent;
  if (view.kind === "answered") {
    next = { ...call, state: "done" };
    drafts.push(
      draft(
        ctx.sessionId,
        newId("evt"),
        { type: "agent.thread_message_received", thread_id: call.thread.id, tool_use_id: call.id, content: textBlocks(view.text) },
        { turnId: ctx.turnId, status: "complete", now: ctx.now },
      ),
      resultDraft(ctx, call, view.ok, view.text),
    );
    if (view.usage) spent = withThreadUsage(spent, view.usage);
  } else {
    next = { ...call, thread: { ...call.thread, seen, asks: view.kind === "asks" ? view.ids : [] } };
  }
  // The worker ended its look cleanly: only workers that die mid-run count as attempts.
  const turn = withCall(state, next, { attempts: 0, ...(spent ? { spent } : {}) });
  if (state.status !== "waiting_on_human") return { drafts, state: { turn }, statuses: [], wake: false };
  const resumed = resumedTurn(state.status, turn, ctx.sessionId, ctx.now);
  if (resumed) return { drafts: [...drafts, resumed.running], state: { status: "running", turn: resumed.turn }, statuses: [], wake: true };
  const asked = blockingEventIds(state.turn!).join(" ") !== blockingEventIds(turn).join(" ");
  const pause = asked ? planPause({ ...state, turn }, ctx.sessionId, ctx.now).drafts : [];
  return { drafts: [...drafts, ...pause], state: { turn }, statuses: [], wake: false };
}
