/**
 * Context compaction: when a turn's context passes a share of the model's window (or the caller asks),
 * the older conversation is summarized by the model and `session.compacted` is appended; the transcript
 * fold then starts from the summary (`transcript-fold.ts`). The log is never rewritten: the session id
 * and the durable history stay as they were. Pure.
 */
import { newId } from "../../ids.js";
import { attachmentLabel } from "../../sessions/domain/attachments.js";
import { draft, type Draft, type Usage } from "../../sessions/domain/events.js";
import type { ModelBlock, ModelMessage } from "../../providers/domain/model-types.js";
import { reject, type Plan, type PlanResult, type RuntimeState } from "../../sessions/domain/session-state.js";
import { addedSpending, addedUp } from "../../sessions/domain/usage-total.js";

/** The system prompt of the summarizing call. */
export const COMPACTION_SYSTEM =
  "You compact a conversation between a user and an AI agent so the agent can continue it with less context. " +
  "Write a faithful summary in the agent's voice for its own later use: the user's goals and requests, decisions " +
  "and their reasons, facts learned (names, numbers, paths, identifiers, results of tools), work done and what " +
  "remains, open questions. Keep exact values; leave out pleasantries. Plain text, no preamble.";

/** The last user message of the summarizing call; the mock model recognises it. */
export const COMPACTION_REQUEST = "Summarize the conversation above, following your instructions.";

/** How the summary opens the compacted transcript. */
export const SUMMARY_PREFIX = "Summary of the earlier conversation (compacted to save context):\n";

export type CompactionTrigger = "auto" | "manual";

export interface CompactedPayload {
  type: "session.compacted";
  trigger: CompactionTrigger;
  summary: string;
  /** The turn whose messages were kept as they are (the one running when it happened), or null: all were summarized. */
  kept_turn: string | null;
  /** How many messages, from the transcript's first, the summary replaces (the fold cuts there). */
  messages_summarized: number;
  /** The context (tokens) the last model call used before, and the model's window. */
  context_before: number;
  context_max: number;
}

/** Whether a context this large must be compacted before the next model call. */
export function compactionDue(contextUsed: number, contextMax: number, thresholdPercent: number): boolean {
  return contextMax > 0 && contextUsed >= (contextMax * thresholdPercent) / 100;
}

/** A block as the summarizer reads it: who said what, tools by name and input, attachments by name and reference only. */
function rendered(role: ModelMessage["role"], b: ModelBlock): string | null {
  const who = role === "user" ? "User" : "Assistant";
  switch (b.type) {
    case "text":
      return `${who}: ${b.text}`;
    case "thinking":
      return null;
    case "attachment":
      // With its reference, which the summary can keep so that vision_analyze can still name it.
      return `${who}: ${b.ref ? attachmentLabel(b.ref, b.attachment) : `[attachment ${b.attachment.filename} (${b.attachment.mediaType})]`}`;
    case "tool_use":
      return `Assistant called tool ${b.name} (${b.id}) with ${JSON.stringify(b.input ?? {})}`;
    case "tool_result":
      return `Tool result (${b.tool_use_id})${b.is_error ? " [error]" : ""}: ${b.content}`;
  }
}

/**
 * The request of the summarizing call: the conversation as one text, then the instruction. As text, it
 * needs no tool definitions (a request with tool blocks must define its tools), carries no reasoning
 * signatures or attachment bytes, and costs fewer tokens than the messages themselves.
 */
export function summaryRequest(older: readonly ModelMessage[]): ModelMessage[] {
  const lines = older.flatMap((m) => m.content.map((b) => rendered(m.role, b)).filter((l): l is string => l !== null));
  const text = `<conversation>\n${lines.join("\n\n")}\n</conversation>\n\n${COMPACTION_REQUEST}`;
  return [{ role: "user", content: [{ type: "text", text }] }];
}

export function summaryMessage(summary: string): ModelMessage {
  return { role: "user", content: [{ type: "text", text: SUMMARY_PREFIX + summary }] };
}

/**
 * The compaction's commit: `session.compacted`, the manual request cleared, and (outside a turn) the
 * summarizing call's usage added to the session's total, as a turn's would be. Null when the session
 * moved on since the summary was made from it (another turn began, or it was archived or deleted):
 * the summary would not cover what the fold sees at this point.
 */
export function planCompacted(state: RuntimeState, sessionId: string, payload: CompactedPayload, now: string, usage: Usage | null): Plan | null {
  const turnId = state.turn?.id ?? null;
  if (turnId !== payload.kept_turn || state.status === "archived" || state.status === "deleted") return null;
  const event: Draft = draft(sessionId, newId("evt"), { ...payload }, { turnId, status: "complete", now, ...(usage ? { usage } : {}) });
  const total = usage && state.usage !== undefined ? { usage: addedUp(state.usage ?? null, usage) } : {};
  return { drafts: [event], state: { compact: false, ...total }, statuses: [], wake: false };
}

/**
 * A summary not used (nothing to summarize, it failed, or a turn began while it was made): its spending
 * between turns (`usage`) still added to the total, the context unchanged; with `dropRequest`, a
 * requested compaction is dropped. Null when there is nothing to change.
 */
export function planCompactionUnused(state: RuntimeState, usage: Usage | null, dropRequest: boolean): Plan | null {
  const total = usage && state.usage !== undefined ? { usage: addedSpending(state.usage ?? null, usage) } : {};
  const flag = dropRequest && state.compact ? { compact: false } : {};
  if (!("usage" in total) && !("compact" in flag)) return null;
  return { drafts: [], state: { ...flag, ...total }, statuses: [], wake: false };
}

/**
 * The caller's request for a compaction, done by a worker: at once if the session is idle, else before
 * the turn's next model call. Idempotent while one is pending; refused for an archived session.
 */
export function planCompactRequested(state: RuntimeState): PlanResult | null {
  if (state.status === "archived") return reject("invalid_state", "the session is archived; an archived session is not compacted");
  if (state.status === "deleted") return reject("invalid_state", "the session is being deleted");
  if (state.compact) return null;
  return { ok: true, plan: { drafts: [], state: { compact: true }, statuses: [], wake: true }, persisted: [] };
}
