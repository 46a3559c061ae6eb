/**
 * The transcript the model sees, as a fold over the durable log (event sourcing): `fold(state, events)`
 * takes the events after `state.sequence` and returns the state after them, so a model call needs a
 * checkpoint and the events since it, never the whole log, and folding a log in pages of any size gives
 * what folding it at once does (`conversation`). Pure.
 *
 * Turn by turn, in log order: the prompts that started the turn, then for every model call the
 * assistant's text and tool uses, then the results of those calls. A tool use left without a result (a
 * turn interrupted while waiting) gets a result saying so, as the model API requires one. A turn's
 * prompts precede its `session.status_running` in the log (every plan writes them so).
 *
 * An event's status, turn and payload are read through the overlay, which can change them after the
 * event was folded. Three such changes matter here, and the fold holds the events they can touch
 * (`held`) so that `revise` can apply them from a fresh read of those events:
 *   - a queued prompt gets its turn when the turn starts (until then it belongs to no turn);
 *   - a long-running custom tool's running result gets its final payload in place;
 *   - a steer becomes processed once a model call answered with it (pending steers are part of the call).
 * The fold holds nothing else of the events it read: its size follows the transcript's.
 *
 * `session.compacted` replaces the messages it summarized (`compactionCut`: before the turn it kept,
 * or all between turns, and never past a long-running call) with its summary (`compaction.ts`), so
 * later calls start from the summary while the log stays whole.
 */
import type { ModelBlock, ModelMessage } from "../../providers/domain/model-types.js";
import { writtenText, type Envelope, type TextBlock } from "../../sessions/domain/events.js";
import { FINAL_RESULT_ARRIVED, NO_RESULT, payloadOf, promptBlocks, resultText, toolUse } from "./conversation.js";
import { summaryMessage } from "./compaction.js";
import { messageBytes } from "./transcript-size.js";

/** A running result of a long-running tool, and where its tool result block stands. */
interface Running {
  event: Envelope;
  /** The index in `messages` of the results message holding its block; null while the block is in the open model call. */
  at: number | null;
}

export interface TranscriptFold {
  /** The last sequence folded in (0: none). */
  readonly sequence: number;
  /** Complete messages; a message is never changed once here (a replaced result is patched into a copy). */
  readonly messages: readonly ModelMessage[];
  /** Estimated memory of `messages`, in bytes. */
  readonly bytes: number;
  /** The model call being assembled: its assistant blocks and the results that answer them. */
  readonly assistant: readonly ModelBlock[];
  readonly results: readonly ModelBlock[];
  readonly used: ReadonlySet<string>;
  readonly answered: ReadonlySet<string>;
  /** The model call that policy denials of the open assistant message came from. */
  readonly deniedCall: string | undefined;
  /** Final results of calls whose turn is over: they open the next turn as text. */
  readonly pendingText: readonly ModelBlock[];
  /** Prompts of turns not started yet, by turn id, in log order. */
  readonly prompts: ReadonlyMap<string, readonly Envelope[]>;
  /** The turn started last: its `session.status_running` again is the turn resuming after a pause. */
  readonly turn: string | null;
  /** Where that turn's messages begin in `messages`: a compaction during it keeps them. */
  readonly turnStart: number;
  /** Held: prompts waiting in the queue (no turn yet), steers no model call has answered, running results. */
  readonly queued: readonly Envelope[];
  readonly steers: readonly Envelope[];
  readonly running: readonly Running[];
}

export const EMPTY_FOLD: TranscriptFold = {
  sequence: 0,
  messages: [],
  bytes: 0,
  assistant: [],
  results: [],
  used: new Set(),
  answered: new Set(),
  deniedCall: undefined,
  pendingText: [],
  prompts: new Map(),
  turn: null,
  turnStart: 0,
  queued: [],
  steers: [],
  running: [],
};

/** The messages that close an open model call: the assistant's, then the results (a tool use without one gets one). */
function closing(assistant: readonly ModelBlock[], results: readonly ModelBlock[], answered: ReadonlySet<string>): ModelMessage[] {
  if (assistant.length === 0) return [];
  const missing: ModelBlock[] = assistant
    .filter((b): b is Extract<ModelBlock, { type: "tool_use" }> => b.type === "tool_use" && !answered.has(b.id))
    .map((b) => ({ type: "tool_result", tool_use_id: b.id, content: NO_RESULT, is_error: true }));
  const all = [...results, ...missing];
  return [{ role: "assistant", content: [...assistant] }, ...(all.length > 0 ? [{ role: "user" as const, content: all }] : [])];
}

/** Folds `events` (in log order) into `state`; events at or below `state.sequence` are already in it. */
export function fold(state: TranscriptFold, events: readonly Envelope[]): TranscriptFold {
  const fresh = events.filter((e) => e.sequence > state.sequence);
  if (fresh.length === 0) return state;
  const messages = [...state.messages];
  let bytes = state.bytes;
  let assistant = [...state.assistant];
  let results = [...state.results];
  const used = new Set(state.used);
  const answered = new Set(state.answered);
  let deniedCall = state.deniedCall;
  let pendingText = [...state.pendingText];
  const prompts = new Map(state.prompts);
  let turn = state.turn;
  let turnStart = state.turnStart;
  const queued = [...state.queued];
  const steers = [...state.steers];
  let running = state.running.map((r) => ({ ...r }));

  const push = (...added: ModelMessage[]) => {
    messages.push(...added);
    bytes += added.reduce((n, m) => n + messageBytes(m), 0);
  };
  const flush = () => {
    const closed = closing(assistant, results, answered);
    push(...closed);
    // Running results of the open call now stand in its results message, the last one pushed.
    const resultsAt = closed.length === 2 ? messages.length - 1 : null;
    running = running.flatMap((r) => (r.at !== null ? [r] : resultsAt !== null ? [{ ...r, at: resultsAt }] : []));
    assistant = [];
    results = [];
    used.clear();
    answered.clear();
    deniedCall = undefined;
  };

  for (const e of fresh) {
    if (e.type === "user.message") {
      if (e.turnId === null) queued.push(e);
      else prompts.set(e.turnId, [...(prompts.get(e.turnId) ?? []), e]);
      continue;
    }
    if (e.type === "user.steer") {
      if (e.status === "received") steers.push(e);
      continue;
    }
    if (e.type === "session.status_running") {
      const turnId = e.turnId ?? "";
      if (turnId === turn) continue; // a paused turn resuming
      turn = turnId;
      const opening = [...pendingText, ...(prompts.get(turnId) ?? []).flatMap(promptBlocks)];
      prompts.delete(turnId);
      flush();
      turnStart = messages.length;
      push({ role: "user", content: opening.length > 0 ? opening : [{ type: "text", text: FINAL_RESULT_ARRIVED }] });
      pendingText = [];
      continue;
    }
    if (e.type === "session.compacted") {
      // The summary replaces the messages it was made from (`compactionCut`), which the event counts.
      const p = payloadOf<{ summary: string; messages_summarized: number }>(e);
      flush();
      const from = Math.min(p.messages_summarized, messages.length);
      const kept = messages.splice(0, messages.length, summaryMessage(p.summary)).slice(from);
      messages.push(...kept);
      bytes = messages.reduce((n, m) => n + messageBytes(m), 0);
      running = running.flatMap((r) => (r.at === null ? [r] : r.at >= from ? [{ ...r, at: r.at - from + 1 }] : []));
      turnStart = Math.max(1, turnStart - from + 1);
      continue;
    }
    if (e.type === "agent.thinking") {
      // Only signed reasoning can go back to the model (see anthropic-request.ts); it opens its answer.
      const p = payloadOf<{ delta: boolean; signature?: string; content: TextBlock[] }>(e);
      if (p.delta !== false || !p.signature) continue;
      if (results.length > 0) flush();
      assistant.push({ type: "thinking", thinking: writtenText(p.content), signature: p.signature });
      continue;
    }
    if (e.type === "agent.message" && payloadOf<{ delta: boolean }>(e).delta === false) {
      if (results.length > 0) flush();
      assistant.push({ type: "text", text: writtenText(payloadOf<{ content: TextBlock[] }>(e).content) });
      continue;
    }
    const use = toolUse(e);
    if (use) {
      if (used.has(use.id)) continue;
      if (results.length > 0) flush();
      used.add(use.id);
      assistant.push({ type: "tool_use", ...use });
      continue;
    }
    const result = resultText(e);
    if (result) {
      if (!used.has(result.id)) {
        if (e.type === "user.custom_tool_result") {
          // A final result of a call whose turn is over: it opens the next turn as text.
          pendingText.push(...promptBlocks(e));
          continue;
        }
        // A denial without a use event belongs to the current model call, or opens the next one.
        const denied = payloadOf<{ tool?: string; input?: unknown; model_call_id?: string }>(e);
        if (results.length > 0 && denied.model_call_id !== deniedCall) flush();
        deniedCall = denied.model_call_id;
        used.add(result.id);
        assistant.push({ type: "tool_use", id: result.id, name: denied.tool ?? "unknown", input: denied.input ?? {} });
      }
      if (answered.has(result.id)) continue;
      answered.add(result.id);
      results.push({ type: "tool_result", tool_use_id: result.id, content: result.text, is_error: result.isError });
      // A running result answers its waiting call, so it always stands here, where its final payload will go.
      if (e.type === "user.custom_tool_result" && e.payload.status === "running") running.push({ event: e, at: null });
    }
  }
  const sequence = fresh[fresh.length - 1]!.sequence;
  return { sequence, messages, bytes, assistant, results, used, answered, deniedCall, pendingText, prompts, turn, turnStart, queued, steers, running };
}

/**
 * How many messages of the transcript a compaction may summarize: those before the turn started last
 * (all of them between turns), and never a long-running call's tool use or what follows it, as its
 * final result is still to replace the running one where it stands.
 */
export function compactionCut(state: TranscriptFold, keepTurn: boolean): number {
  const all = transcript(state).length;
  // A running result's tool use opens the message before its results (the open call's, once closed).
  const waiting = state.running.map((r) => (r.at === null ? state.messages.length : r.at - 1));
  return Math.min(keepTurn ? state.turnStart : all, ...waiting);
}

/** The events whose overlay may since have changed what the fold made of them: read them again and `revise`. */
export function held(state: TranscriptFold): Envelope[] {
  return [...state.queued, ...state.steers, ...state.running.map((r) => r.event)];
}

/** The fold with fresh reads of its held events applied: queued prompts that joined a turn, answered steers, final results. */
export function revise(state: TranscriptFold, fresh: readonly Envelope[]): TranscriptFold {
  if (fresh.length === 0) return state;
  const byId = new Map(fresh.map((e) => [e.id, e]));
  const now = (e: Envelope) => byId.get(e.id) ?? e;

  const prompts = new Map(state.prompts);
  const queued: Envelope[] = [];
  for (const e of state.queued.map(now)) {
    if (e.turnId === null) queued.push(e);
    else
      prompts.set(
        e.turnId,
        [...(prompts.get(e.turnId) ?? []), e].sort((a, b) => a.sequence - b.sequence),
      );
  }
  const steers = state.steers.map(now).filter((e) => e.status === "received");

  let { messages, bytes, results } = state;
  const running: Running[] = [];
  for (const r of state.running) {
    const e = now(r.event);
    if (e.payload.status === "running") running.push({ ...r, event: e });
    if (JSON.stringify(e.payload) === JSON.stringify(r.event.payload)) continue;
    // A result replaced in place (the final one, so far): its block changes where it stands.
    const final = resultText(e)!;
    const patch = (blocks: readonly ModelBlock[]) =>
      blocks.map((b) => (b.type === "tool_result" && b.tool_use_id === final.id ? { ...b, content: final.text, is_error: final.isError } : b));
    if (r.at === null) {
      results = patch(results);
    } else {
      const before = messages[r.at]!;
      const after = { ...before, content: patch(before.content) };
      messages = messages.map((m, i) => (i === r.at ? after : m));
      bytes += messageBytes(after) - messageBytes(before);
    }
  }
  return { ...state, messages, bytes, results, prompts, queued, steers, running };
}

/** The messages of a model call made now (the fold's own list when no model call is open: it is never changed). */
export function transcript(state: TranscriptFold): readonly ModelMessage[] {
  const open = closing(state.assistant, state.results, state.answered);
  return open.length === 0 ? state.messages : [...state.messages, ...open];
}

/** Steers no model call has answered with yet, in log order. */
export function pendingSteers(state: TranscriptFold): { id: string; text: string }[] {
  return state.steers.map((e) => ({ id: e.id, text: String(e.payload.message) }));
}

/** The transcript of a whole log (with its current overlay), folded at once. */
export function conversation(log: readonly Envelope[]): readonly ModelMessage[] {
  return transcript(fold(EMPTY_FOLD, log));
}
