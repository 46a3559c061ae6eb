/**
 * A provider-neutral request in the Messages API's terms: tools and conversation blocks, attachments as
 * image and document blocks (each after a line naming it), and the prompt-cache breakpoints (the last
 * tool, the last block).
 */
import type {
  DocumentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  ThinkingBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import { attachmentLabel } from "../sessions/domain/attachments.js";
import type { Attachment } from "../sessions/domain/events.js";
import type { ModelBlock, ModelMessage, ToolSpec } from "./domain/model-types.js";
import { attachmentContents, type AttachmentContent } from "./attachment-content.js";
import type { ModelInputs, ModelRequest } from "./provider.js";

const EPHEMERAL = { type: "ephemeral" } as const;

/** What the Messages API reads natively: these images, and PDFs (as text and page images). */
export const ANTHROPIC_READS: ModelInputs = { images: new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]), pdf: true };

/** The request body (`messageParams`), with the attachments read first (documents as their text). */
export async function requestBody(request: ModelRequest, maxTokens: number, thinkingBudget: number): Promise<MessageCreateParamsStreaming> {
  return messageParams(request, maxTokens, await attachmentContents(request.messages, ANTHROPIC_READS, request.signal), thinkingBudget);
}

/** What the attachments of a request are given as (`attachmentContents`). */
export type Contents = ReadonlyMap<Attachment, AttachmentContent>;

/** Models that take extended thinking: Claude 3.7 Sonnet and every Sonnet, Opus and Haiku from 4 on. */
const THINKING_MODELS = /^claude-(3-7-sonnet|(sonnet|opus|haiku)-([4-9]|\d{2,}))/;

/**
 * Whether a call may ask for extended thinking: the model takes it, and, in a tool loop, the answer
 * whose calls are being answered began with a signed thinking block (the API requires it back then,
 * and an answer written without thinking cannot be continued with it).
 */
function thinks(model: string, budget: number, messages: readonly ModelMessage[]): boolean {
  if (budget <= 0 || !THINKING_MODELS.test(model)) return false;
  const last = messages[messages.length - 1];
  if (!last || last.role !== "user" || !last.content.some((b) => b.type === "tool_result")) return true;
  return messages.findLast((m) => m.role === "assistant")?.content[0]?.type === "thinking";
}

/**
 * The request body; the model name comes without its `anthropic/` prefix. With thinking, its budget
 * comes on top of `maxTokens`, so thinking never shortens the answer.
 */
export function messageParams(request: ModelRequest, maxTokens: number, contents: Contents, thinkingBudget = 0): MessageCreateParamsStreaming {
  const model = request.model.startsWith("anthropic/") ? request.model.slice("anthropic/".length) : request.model;
  const thinking = thinks(model, thinkingBudget, request.messages);
  const params: MessageCreateParamsStreaming = {
    model,
    max_tokens: thinking ? maxTokens + thinkingBudget : maxTokens,
    messages: toMessages(request.messages, request.steers, contents, thinking),
    stream: true,
  };
  if (thinking) params.thinking = { type: "enabled", budget_tokens: thinkingBudget };
  // The system prompt (with the skills) and the tool list are the large stable prefix of every call:
  // a cache breakpoint on each makes later calls read them at a tenth of the input price.
  if (request.system) params.system = [{ type: "text", text: request.system, cache_control: EPHEMERAL }];
  if (request.tools.length > 0) params.tools = toTools(request.tools);
  return params;
}

/** The tools, the last one a cache breakpoint (tools come first in what the cache holds). */
function toTools(tools: ToolSpec[]): Tool[] {
  return tools.map((t, i) => {
    const tool: Tool = { name: t.name, description: t.description, input_schema: t.input_schema as Tool.InputSchema };
    if (i === tools.length - 1) tool.cache_control = EPHEMERAL;
    return tool;
  });
}

/** The blocks this provider sends; every one of them may carry a cache breakpoint. */
type Block = TextBlockParam | ThinkingBlockParam | ImageBlockParam | DocumentBlockParam | ToolUseBlockParam | ToolResultBlockParam;

/**
 * The conversation as the API wants it: empty blocks dropped, consecutive messages of one role merged
 * (roles must alternate), tool results first in a user message (the API requires it), and the user's
 * steers appended to the last user message. Signed thinking blocks go back only to a call that thinks.
 */
export function toMessages(messages: readonly ModelMessage[], steers: string[], contents: Contents, thinking = false): MessageParam[] {
  const out: { role: "user" | "assistant"; content: Block[] }[] = [];
  for (const m of messages) {
    const content = m.content.flatMap((b) => (b.type === "thinking" ? (thinking ? [thinkingBlock(b)] : []) : toBlocks(b, contents)));
    if (content.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content.push(...content);
    else out.push({ role: m.role, content });
  }
  for (const m of out) {
    if (m.role === "user") m.content = [...m.content.filter((b) => b.type === "tool_result"), ...m.content.filter((b) => b.type !== "tool_result")];
  }
  // A breakpoint on the last block of the conversation: the next call of the tool loop, or the next
  // turn within the cache's lifetime, reads everything so far from the cache. The steers come after
  // it because later calls do not repeat them.
  const lastBlock = out[out.length - 1]?.content.at(-1);
  if (lastBlock && lastBlock.type !== "thinking") lastBlock.cache_control = EPHEMERAL;
  const guidance = steers.filter((s) => s.trim() !== "");
  if (guidance.length > 0) {
    const block: TextBlockParam = { type: "text", text: `Guidance from the user since your last step:\n${guidance.map((s) => `- ${s}`).join("\n")}` };
    const last = out[out.length - 1];
    if (last && last.role === "user") last.content.push(block);
    else out.push({ role: "user", content: [block] });
  }
  return out;
}

function thinkingBlock(b: Extract<ModelBlock, { type: "thinking" }>): ThinkingBlockParam {
  return { type: "thinking", thinking: b.thinking, signature: b.signature };
}

function toBlocks(block: Exclude<ModelBlock, { type: "thinking" }>, contents: Contents): Block[] {
  switch (block.type) {
    case "text":
      return block.text === "" ? [] : [{ type: "text", text: block.text }];
    case "attachment": {
      const label: Block[] = block.ref ? [{ type: "text", text: attachmentLabel(block.ref, block.attachment) }] : [];
      return [...label, attachmentBlock(block.attachment, contents.get(block.attachment))];
    }
    case "tool_use":
      return [{ type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} }];
    case "tool_result":
      return [{ type: "tool_result", tool_use_id: block.tool_use_id, content: block.content, is_error: block.is_error }];
  }
}

/**
 * A PDF is a base64 document block in either analysis mode: the API reads every page both as text and
 * as an image, which is the page-image analysis `visual` asks for (its label says it was asked).
 */
function attachmentBlock(a: Attachment, content: AttachmentContent | undefined): Block {
  switch (content?.kind) {
    case "image":
      return {
        type: "image",
        source: { type: "base64", media_type: content.mediaType as "image/png" | "image/jpeg" | "image/gif" | "image/webp", data: content.data },
      };
    case "pdf":
      return { type: "document", source: { type: "base64", media_type: "application/pdf", data: content.data } };
    case "text":
      return {
        type: "document",
        title: a.filename,
        ...(content.note ? { context: content.note } : {}),
        source: { type: "text", media_type: "text/plain", data: content.text },
      };
    case "unreadable":
      return { type: "text", text: content.text };
    default:
      return { type: "text", text: `The attachment ${a.filename} (${a.mediaType}) cannot be read by this model.` };
  }
}
