/**
 * The transcript builder as it stood before it became a fold (commit 833c32c, `conversation` and
 * `pendingSteers` of src/worker/domain/conversation.ts), kept as the oracle the fold is compared with: on
 * every log the service writes, folding must give what this full rebuild gave.
 */
import { FINAL_RESULT_ARRIVED, NO_RESULT, payloadOf, promptBlocks, resultText, toolUse } from "../../src/worker/domain/conversation.js";
import { writtenText, type Envelope, type TextBlock } from "../../src/sessions/domain/events.js";
import type { ModelBlock, ModelMessage } from "../../src/providers/domain/model-types.js";

export function oracleConversation(log: Envelope[]): ModelMessage[] {
  const prompts = new Map<string, Envelope[]>();
  for (const e of log) {
    if (e.type === "user.message" && e.turnId !== null) prompts.set(e.turnId, [...(prompts.get(e.turnId) ?? []), e]);
  }
  const out: ModelMessage[] = [];
  let assistant: ModelBlock[] = [];
  let results: ModelBlock[] = [];
  let pendingText: ModelBlock[] = [];
  const used = new Set<string>();
  const answered = new Set<string>();
  const turns = new Set<string>();
  /** The model call that policy denials of the current assistant message came from. */
  let deniedCall: string | undefined;

  const flush = () => {
    if (assistant.length > 0) {
      for (const b of assistant) {
        if (b.type === "tool_use" && !answered.has(b.id)) results.push({ type: "tool_result", tool_use_id: b.id, content: NO_RESULT, is_error: true });
      }
      out.push({ role: "assistant", content: assistant });
      if (results.length > 0) out.push({ role: "user", content: results });
    }
    assistant = [];
    results = [];
    used.clear();
    answered.clear();
    deniedCall = undefined;
  };

  for (const e of log) {
    if (e.type === "session.status_running") {
      const turnId = e.turnId ?? "";
      if (turns.has(turnId)) continue; // a paused turn resuming
      turns.add(turnId);
      const opening = [...pendingText, ...(prompts.get(turnId) ?? []).flatMap(promptBlocks)];
      flush();
      out.push({ role: "user", content: opening.length > 0 ? opening : [{ type: "text", text: FINAL_RESULT_ARRIVED }] });
      pendingText = [];
      continue;
    }
    if (e.type === "agent.message" && payloadOf<{ delta: boolean }>(e).delta === false) {
      if (results.length > 0) flush();
      // Since then: a message the service cut into blocks is one text (`textBlocks`).
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
        const denied = payloadOf<{ tool?: string; input?: unknown; model_call_id?: string }>(e);
        if (e.type === "user.custom_tool_result") {
          // A final result of a call whose turn is over: it opens the next turn as text.
          pendingText.push(...promptBlocks(e));
          continue;
        }
        // A denial without a use event belongs to the current model call, or opens the next one.
        if (results.length > 0 && denied.model_call_id !== deniedCall) flush();
        deniedCall = denied.model_call_id;
        used.add(result.id);
        assistant.push({ type: "tool_use", id: result.id, name: denied.tool ?? "unknown", input: denied.input ?? {} });
      }
      if (answered.has(result.id)) continue;
      answered.add(result.id);
      results.push({ type: "tool_result", tool_use_id: result.id, content: result.text, is_error: result.isError });
    }
  }
  flush();
  return out;
}

/** Steers no model call has answered with yet, in log order (the log, with statuses merged in). */
export function oraclePendingSteers(log: Envelope[]): { id: string; text: string }[] {
  return log.filter((e) => e.type === "user.steer" && e.status === "received").map((e) => ({ id: e.id, text: String(e.payload.message) }));
}
