/**
 * Rebuilds what the model sees from the durable log (event sourcing): pure, no I/O.
 *
 * Turn by turn, in log order: the prompts that started the turn, then for every model call the
 * assistant's text and tool uses, then the results of those calls. Tool uses come from
 * `agent.approval_request`, `agent.tool_use`, `agent.mcp_tool_use`, `agent.custom_tool_use` and
 * `agent.clarify_request` (a result of a call denied without asking carries the call's input);
 * results from `agent.tool_result`, `agent.mcp_tool_result`, `user.custom_tool_result` and
 * `user.clarify_result`. A tool use left without a result (a turn interrupted while waiting) gets a
 * result saying so, as the model API requires one.
 */
import type { ModelBlock, ModelMessage } from "./model-types.js";
import type { Attachment, Envelope, TextBlock } from "./events.js";
import { textOf } from "./events.js";

function payloadOf<T>(e: Envelope): T {
  return e.payload as unknown as T;
}

export const DENIED_PREFIX = "The tool call was denied: ";
export const SKIPPED_ANSWER = "The user skipped this question; use your own judgement.";
const NO_RESULT = "No result: the turn ended before this tool call finished.";
/** Opens a turn started by a long-running tool's final result, which replaced its running result in place. */
const FINAL_RESULT_ARRIVED = "A long-running tool call has finished; its final result now stands in place of the running one above.";

function promptBlocks(e: Envelope): ModelBlock[] {
  if (e.type === "user.custom_tool_result") {
    const p = payloadOf<{ tool_use_id: string; content: TextBlock[]; is_error?: boolean; status?: string }>(e);
    return [{ type: "text", text: `The tool call ${p.tool_use_id} ${p.status === "failed" || p.is_error ? "failed" : "finished"}: ${textOf(p.content)}` }];
  }
  const p = payloadOf<{ content: TextBlock[]; attachments?: Attachment[] }>(e);
  return [{ type: "text", text: textOf(p.content) }, ...(p.attachments ?? []).map((attachment) => ({ type: "attachment" as const, attachment }))];
}

function resultText(e: Envelope): { id: string; text: string; isError: boolean } | null {
  switch (e.type) {
    case "agent.tool_result":
    case "agent.mcp_tool_result":
    case "user.custom_tool_result": {
      const p = payloadOf<{ tool_use_id: string; content: TextBlock[]; is_error?: boolean; status?: string }>(e);
      return { id: p.tool_use_id, text: textOf(p.content), isError: p.is_error === true || p.status === "failed" };
    }
    case "user.clarify_result": {
      const p = payloadOf<{ request_id: string; answer: string }>(e);
      return { id: p.request_id, text: p.answer === "" ? SKIPPED_ANSWER : p.answer, isError: false };
    }
    default:
      return null;
  }
}

function toolUse(e: Envelope): { id: string; name: string; input: unknown } | null {
  switch (e.type) {
    case "agent.approval_request": {
      const p = payloadOf<{ tool_use_id: string; tool: string; input: unknown }>(e);
      return { id: p.tool_use_id, name: p.tool, input: p.input };
    }
    case "agent.tool_use":
    case "agent.mcp_tool_use":
    case "agent.custom_tool_use": {
      const p = payloadOf<{ id: string; tool: string; input: unknown }>(e);
      return { id: p.id, name: p.tool, input: p.input };
    }
    case "agent.clarify_request": {
      const p = payloadOf<{ request_id: string; question: string; choices: string[] | null }>(e);
      return { id: p.request_id, name: "clarify", input: { question: p.question, ...(p.choices ? { choices: p.choices } : {}) } };
    }
    default:
      return null;
  }
}

export function conversation(log: Envelope[]): ModelMessage[] {
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
      assistant.push({ type: "text", text: textOf(payloadOf<{ content: TextBlock[] }>(e).content) });
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
export function pendingSteers(log: Envelope[]): { id: string; text: string }[] {
  return log.filter((e) => e.type === "user.steer" && e.status === "received").map((e) => ({ id: e.id, text: String(e.payload.message) }));
}

/** A short title from the first user message: its first line, cut at a word boundary. */
export function titleFrom(text: string, max = 60): string {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l.length > 0) ?? "New conversation";
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
