/**
 * A provider-neutral request in Chat Completions' terms: the system prompt as the first message, tool
 * specs as functions, an assistant's tool uses as `tool_calls` and their results as `tool` messages
 * right after it, attachments as `image_url` data URLs or text parts (each after a line naming it).
 */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { attachmentLabel } from "../sessions/domain/attachments.js";
import type { Attachment } from "../sessions/domain/events.js";
import type { ModelBlock, ModelMessage, ToolSpec } from "./domain/model-types.js";
import { attachmentContents, type AttachmentContent } from "./attachment-content.js";
import type { ModelInputs, ModelRequest } from "./provider.js";

/**
 * What Chat Completions reads as images on every server that takes images (PNG, JPEG, GIF, WebP); PDFs
 * go as their pages' text, since OpenAI's `file` parts are not part of the compatible format.
 */
export const OPENAI_READS: ModelInputs = { images: new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]), pdf: false };

type Contents = ReadonlyMap<Attachment, AttachmentContent>;

/** How the answer's length is bounded: OpenAI's own API wants `max_completion_tokens`, compatible servers read `max_tokens`. */
export type MaxTokensField = "max_completion_tokens" | "max_tokens";

/** The request body, with the attachments read first (documents as their text). */
export async function chatRequestBody(request: ModelRequest, maxTokens: number, field: MaxTokensField): Promise<ChatCompletionCreateParamsStreaming> {
  return chatParams(request, maxTokens, field, await attachmentContents(request.messages, OPENAI_READS, request.signal));
}

/** The request body; `request.model` comes without its `<provider>/` prefix. */
export function chatParams(request: ModelRequest, maxTokens: number, field: MaxTokensField, contents: Contents): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  messages.push(...toChatMessages(request.messages, request.steers, contents));
  const params: ChatCompletionCreateParamsStreaming = { model: request.model, messages, stream: true, stream_options: { include_usage: true } };
  params[field] = maxTokens;
  if (request.tools.length > 0) params.tools = request.tools.map(toTool);
  return params;
}

function toTool(t: ToolSpec): ChatCompletionTool {
  return { type: "function", function: { name: t.name, description: t.description, parameters: t.input_schema } };
}

/**
 * The conversation: an assistant message's text and tool calls in one message; a user message's tool
 * results first, as `tool` messages (they must follow the calls), then its other content; reasoning is
 * not sent back (nothing in this format takes it); the user's steers after the last message.
 */
export function toChatMessages(messages: readonly ModelMessage[], steers: string[], contents: Contents): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (const m of messages) {
    if (m.role === "assistant") {
      const text = m.content.flatMap((b) => (b.type === "text" && b.text !== "" ? [b.text] : [])).join("\n");
      const calls = m.content.filter((b): b is Extract<ModelBlock, { type: "tool_use" }> => b.type === "tool_use");
      if (text === "" && calls.length === 0) continue;
      const message: ChatCompletionAssistantMessageParam = { role: "assistant", content: text === "" ? null : text };
      if (calls.length > 0)
        message.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) } }));
      out.push(message);
      continue;
    }
    for (const b of m.content) {
      if (b.type === "tool_result") out.push({ role: "tool", tool_call_id: b.tool_use_id, content: b.is_error ? `[error] ${b.content}` : b.content });
    }
    const parts = m.content.flatMap((b) => userParts(b, contents));
    if (parts.length > 0) out.push({ role: "user", content: parts });
  }
  const guidance = steers.filter((s) => s.trim() !== "");
  if (guidance.length > 0) out.push({ role: "user", content: `Guidance from the user since your last step:\n${guidance.map((s) => `- ${s}`).join("\n")}` });
  return out;
}

function userParts(block: ModelBlock, contents: Contents): ChatCompletionContentPart[] {
  switch (block.type) {
    case "text":
      return block.text === "" ? [] : [{ type: "text", text: block.text }];
    case "attachment": {
      const label: ChatCompletionContentPart[] = block.ref ? [{ type: "text", text: attachmentLabel(block.ref, block.attachment) }] : [];
      return [...label, attachmentPart(block.attachment, contents.get(block.attachment))];
    }
    default:
      return [];
  }
}

function attachmentPart(a: Attachment, content: AttachmentContent | undefined): ChatCompletionContentPart {
  switch (content?.kind) {
    case "image":
      return { type: "image_url", image_url: { url: `data:${content.mediaType};base64,${content.data}` } };
    case "text":
      return { type: "text", text: `<document filename="${a.filename}"${content.note ? ` note="${content.note}"` : ""}>\n${content.text}\n</document>` };
    case "unreadable":
      return { type: "text", text: content.text };
    default:
      return { type: "text", text: `The attachment ${a.filename} (${a.mediaType}) cannot be read by this model.` };
  }
}
