/**
 * What each event of the durable log contributes to the transcript the model sees: the prompts that
 * open a turn, the tool uses of a model call, and the results that answer them. Pure; the transcript
 * itself is folded from these in `transcript-fold.ts`.
 *
 * Tool uses come from `agent.approval_request`, `agent.tool_use`, `agent.mcp_tool_use`,
 * `agent.custom_tool_use` and `agent.clarify_request` (a result of a call denied without asking
 * carries the call's input); results from `agent.tool_result`, `agent.mcp_tool_result`,
 * `user.custom_tool_result` and `user.clarify_result`.
 */
import type { ModelBlock } from "../../providers/domain/model-types.js";
import type { Attachment, Envelope, TextBlock } from "../../sessions/domain/events.js";
import { textOf, writtenText } from "../../sessions/domain/events.js";
import { attachmentRef } from "../../sessions/domain/attachments.js";

export function payloadOf<T>(e: Envelope): T {
  return e.payload as unknown as T;
}

export const DENIED_PREFIX = "The tool call was denied: ";
export const SKIPPED_ANSWER = "The user skipped this question; use your own judgement.";
export const NO_RESULT = "No result: the turn ended before this tool call finished.";
/** Opens a turn started by a long-running tool's final result, which replaced its running result in place. */
export const FINAL_RESULT_ARRIVED = "A long-running tool call has finished; its final result now stands in place of the running one above.";

export function promptBlocks(e: Envelope): ModelBlock[] {
  if (e.type === "user.custom_tool_result") {
    const p = payloadOf<{ tool_use_id: string; content: TextBlock[]; is_error?: boolean; status?: string }>(e);
    return [{ type: "text", text: `The tool call ${p.tool_use_id} ${p.status === "failed" || p.is_error ? "failed" : "finished"}: ${textOf(p.content)}` }];
  }
  const p = payloadOf<{ content: TextBlock[]; attachments?: Attachment[] }>(e);
  return [
    { type: "text", text: textOf(p.content) },
    ...(p.attachments ?? []).map((attachment, i) => ({ type: "attachment" as const, attachment, ref: attachmentRef(e.id, i) })),
  ];
}

export function resultText(e: Envelope): { id: string; text: string; isError: boolean } | null {
  switch (e.type) {
    case "agent.tool_result":
    case "agent.mcp_tool_result":
    case "user.custom_tool_result": {
      const p = payloadOf<{ tool_use_id: string; content: TextBlock[]; is_error?: boolean; status?: string }>(e);
      // A tool's output the service split into blocks is one text; a client's blocks are its own.
      const text = e.type === "user.custom_tool_result" ? textOf(p.content) : writtenText(p.content);
      return { id: p.tool_use_id, text, isError: p.is_error === true || p.status === "failed" };
    }
    case "user.clarify_result": {
      const p = payloadOf<{ request_id: string; answer: string }>(e);
      return { id: p.request_id, text: p.answer === "" ? SKIPPED_ANSWER : p.answer, isError: false };
    }
    default:
      return null;
  }
}

export function toolUse(e: Envelope): { id: string; name: string; input: unknown } | null {
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

/** A short title from the first user message: its first line, cut at a word boundary. */
export function titleFrom(text: string, max = 60): string {
  const line =
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? "New conversation";
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
