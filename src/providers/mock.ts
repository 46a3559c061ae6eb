/**
 * The built-in offline model (`mock/<anything>`), driven by the text of the latest user message:
 *   plain text                     → replies `echo: <text>`, streamed in several deltas
 *   /slow <ms> <text>              → waits <ms> (an interrupt stops it), then echoes <text>
 *   /error <text>                  → the turn ends with stop_reason {type: error, message: <text>}
 *   /think <text>                  → streams agent.thinking deltas, then the whole (unsigned) thought,
 *                                    then echoes <text>
 *   /tool <name> <json-input>      → calls the tool (first streaming it: its name, then its input); with its result replies `tool <name> result: <text>`,
 *                                    or `tool <name> denied: <reason>` when the call was denied; several
 *                                    `/tool` lines make several calls at once, answered line by line
 *   /clarify <question> | <choice> | … → asks with the clarify tool; then replies `answer: <answer>`
 *                                    (`answer: (skipped)` for an empty answer)
 *   /context                       → replies `context: <n> messages; first: <start of the first message>`
 *   /attachments                   → lists the attachments of the message as the model receives them:
 *                                    `attachments: <n>`, then for each its label line and its content
 *                                    (`image, <bytes> bytes`, or the text read from it, after `(<note>)`
 *                                    when there is one, or why it cannot be read)
 * vision_analyze's question (the image-question system prompt) → `vision: <question> [<mediaType>,
 * <bytes> bytes, sha256 <first 8 hex digits>]`.
 * A compaction's summary request is answered `summary: <what the user said> | …`. The context window is
 * 200,000 tokens, or <n> for a model named `mock/window-<n>`; a token is counted as four characters.
 * Steers received since the previous call are appended to the reply as ` [steer: <text>]`.
 * It reads the images Anthropic reads and no PDF (PDFs reach it as their text, see attachment-content.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { attachmentLabel } from "../sessions/domain/attachments.js";
import { COMPACTION_REQUEST } from "../worker/domain/compaction.js";
import { DENIED_PREFIX, SKIPPED_ANSWER } from "../worker/domain/conversation.js";
import { attachmentContents, base64Of, type AttachmentContent } from "./attachment-content.js";
import { IMAGE_QUESTION_SYSTEM } from "./image-question.js";
import type { ModelBlock, ModelInputs, ModelMessage, ModelProvider, ModelRequest, ModelResult, StreamHandlers, TokenUsage, ToolUse } from "./provider.js";
import { sleep, textOfBlocks } from "./provider.js";

const CONTEXT_MAX = 200_000;
const MAX_SLOW_MS = 600_000;
const DELTA_COUNT = 4;
const ATTACHMENT_CHARS_MAX = 6_400;

const tokens = (text: string) => Math.ceil(text.length / 4);

/** Characters a block puts before the model: counted, not serialized. */
function blockChars(b: ModelBlock): number {
  switch (b.type) {
    case "text":
      return b.text.length;
    case "thinking":
      return b.thinking.length;
    case "attachment":
      // A model is charged for what it sees (pixels, pages), not for the bytes; about 1,600 tokens at most, as an image is.
      return Math.min(b.attachment.source.dataUrl.length, ATTACHMENT_CHARS_MAX);
    case "tool_use":
      return b.name.length + JSON.stringify(b.input ?? {}).length;
    case "tool_result":
      return b.content.length;
  }
}

/**
 * Characters of the conversation up to and including each message already measured, per conversation
 * (keyed by its first message: a compacted transcript starts with a new one, and its kept messages are
 * counted afresh). A worker hands the same message objects to every call of a session (it keeps the
 * transcript between calls), so a call measures only the messages after the last one it recognises,
 * not the whole transcript. A result replaced in place leaves the counts after it off by the
 * difference: this is an estimate.
 */
const measuredBy = new WeakMap<ModelMessage, WeakMap<ModelMessage, number>>();

function conversationChars(messages: readonly ModelMessage[]): number {
  const first = messages[0];
  if (!first) return 0;
  const measured = measuredBy.get(first) ?? new WeakMap<ModelMessage, number>();
  measuredBy.set(first, measured);
  let from = messages.length;
  while (from > 0 && !measured.has(messages[from - 1]!)) from--;
  let chars = from > 0 ? measured.get(messages[from - 1]!)! : 0;
  for (const m of messages.slice(from)) {
    for (const b of m.content) chars += blockChars(b);
    measured.set(m, chars);
  }
  return chars;
}

/** `mock/window-<tokens>` has a context window that small (compaction is tested with one). */
function windowOf(model: string): number {
  const window = /(?:^|-)window-(\d+)$/.exec(model);
  return window ? Math.max(1, Number(window[1])) : CONTEXT_MAX;
}

/** A summary made of what the user said, in order: deterministic, so tests can read it. */
function summaryOf(conversation: string): string {
  const said = [...conversation.matchAll(/^User: (.*)$/gm)].map((m) => m[1]!.slice(0, 60));
  return `summary: ${said.join(" | ")}`;
}

/** What the call was given: its message count and how it starts (tests see where the transcript begins). */
function contextReport(messages: readonly ModelMessage[]): string {
  const first = messages[0] ? textOfBlocks(messages[0].content).slice(0, 120) : "";
  return `context: ${messages.length} messages; first: ${first}`;
}

function promptTokens(request: ModelRequest): number {
  return tokens(request.system) + Math.ceil(conversationChars(request.messages) / 4) + request.steers.reduce((n, s) => n + tokens(s), 0);
}

/** Splits text into a few chunks, so clients see real streaming. */
export function chunks(text: string, count = DELTA_COUNT): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The reply to tool results that end the conversation so far, if they do: a line per call, in call order. */
function replyToResults(messages: readonly ModelMessage[]): string | null {
  const last = messages[messages.length - 1];
  const results = last?.role === "user" ? last.content.filter((b): b is Extract<ModelBlock, { type: "tool_result" }> => b.type === "tool_result") : [];
  if (results.length === 0) return null;
  const uses = (messages[messages.length - 2]?.content ?? []).filter((b): b is Extract<ModelBlock, { type: "tool_use" }> => b.type === "tool_use");
  return uses
    .map((use) => ({ name: use.name, r: results.find((r) => r.tool_use_id === use.id) }))
    .filter((x): x is { name: string; r: Extract<ModelBlock, { type: "tool_result" }> } => x.r !== undefined)
    .map(({ name, r }) => {
      if (r.content.startsWith(DENIED_PREFIX)) return `tool ${name} denied: ${r.content.slice(DENIED_PREFIX.length)}`;
      if (name === "clarify") return `answer: ${r.content === SKIPPED_ANSWER ? "(skipped)" : r.content}`;
      return `tool ${name} result: ${r.content}`;
    })
    .join("\n");
}

/** The tool call a command asks for, or an error text for a malformed one. */
function toolCommand(text: string): ToolUse | string | null {
  const id = `call_${randomBytes(6).toString("hex")}`;
  const tool = /^\/tool\s+(\S+)\s*([\s\S]*)$/.exec(text);
  if (tool) {
    try {
      return { id, name: tool[1]!, input: tool[2]!.trim() ? (JSON.parse(tool[2]!) as unknown) : {} };
    } catch {
      return "mock: the input of /tool must be JSON";
    }
  }
  const clarify = /^\/clarify\s+([\s\S]+)$/.exec(text);
  if (clarify) {
    const [question, ...choices] = clarify[1]!.split("|").map((p) => p.trim());
    return { id, name: "clarify", input: { question, ...(choices.length > 0 ? { choices } : {}) } };
  }
  return null;
}

type AttachmentBlock = Extract<ModelBlock, { type: "attachment" }>;
const attachmentsOf = (m: ModelMessage | undefined) => (m?.content ?? []).filter((b): b is AttachmentBlock => b.type === "attachment");
const bytesOf = (base64: string) => Buffer.from(base64, "base64");

function describe(content: AttachmentContent): string {
  switch (content.kind) {
    case "image":
      return `image, ${bytesOf(content.data).length} bytes`;
    case "pdf":
      return `pdf, ${bytesOf(content.data).length} bytes`;
    case "text":
      return content.note ? `(${content.note})\n${content.text}` : content.text;
    case "unreadable":
      return content.text;
  }
}

export class MockProvider implements ModelProvider {
  readonly reads: ModelInputs = { images: new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]), pdf: false };

  /** The `/attachments` reply: what the latest user message's attachments reach the model as. */
  private async attachmentsReply(message: ModelMessage | undefined, signal: AbortSignal): Promise<string> {
    const blocks = attachmentsOf(message);
    const contents = await attachmentContents(message ? [message] : [], this.reads, signal);
    const lines = blocks.map((b) => `${attachmentLabel(b.ref ?? "-", b.attachment)}\n${describe(contents.get(b.attachment)!)}`);
    return [`attachments: ${blocks.length}`, ...lines].join("\n");
  }

  async call(request: ModelRequest, handlers: StreamHandlers): Promise<ModelResult> {
    const usage: TokenUsage = { input: promptTokens(request), output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };
    const contextMax = windowOf(request.model);
    const stream = async (reply: string): Promise<ModelResult> => {
      const full = reply + request.steers.map((s) => ` [steer: ${s}]`).join("");
      for (const part of chunks(full)) {
        if (request.signal.aborted) break;
        await handlers.onTextDelta(part);
      }
      usage.output = tokens(full) + usage.reasoning;
      return { ok: true, text: full, toolUses: [], usage, contextMax };
    };

    if (request.system === IMAGE_QUESTION_SYSTEM) {
      const message = request.messages[0];
      const image = attachmentsOf(message)[0]?.attachment;
      const data = bytesOf((image && base64Of(image.source.dataUrl)) ?? "");
      const sha = createHash("sha256").update(data).digest("hex").slice(0, 8);
      return stream(`vision: ${textOfBlocks(message?.content ?? [])} [${image?.mediaType}, ${data.length} bytes, sha256 ${sha}]`);
    }
    const last = request.messages.findLast((m) => m.role === "user");
    let text = last ? textOfBlocks(last.content).trim() : "";
    if (text.endsWith(COMPACTION_REQUEST)) return stream(summaryOf(text));
    const afterTools = replyToResults(request.messages);
    if (afterTools !== null) return stream(afterTools);

    const slow = /^\/slow\s+(\d+)\s*([\s\S]*)$/.exec(text);
    if (slow) {
      await sleep(Math.min(Number(slow[1]), MAX_SLOW_MS), request.signal);
      text = slow[2]!;
    }
    if (text === "/attachments") return stream(await this.attachmentsReply(last, request.signal));
    const error = /^\/error\s*([\s\S]*)$/.exec(text);
    if (error) return { ok: false, error: error[1] || "mock error", usage, contextMax };
    const commands = text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line)
      .map(toolCommand);
    if (commands.length > 0 && commands.every((c) => c !== null)) {
      const invalid = commands.find((c): c is string => typeof c === "string");
      if (invalid) return stream(invalid);
      const toolUses = commands as ToolUse[];
      for (const use of toolUses) {
        await handlers.onToolUseStreaming?.({ id: use.id, name: use.name });
        await handlers.onToolUseStreaming?.(use);
      }
      usage.output = tokens(JSON.stringify(toolUses));
      return { ok: true, text: "", toolUses, usage, contextMax };
    }
    if (/^\/context\b/.test(text)) return stream(contextReport(request.messages));
    const think = /^\/think\s*([\s\S]*)$/.exec(text);
    if (think) {
      text = think[1]!;
      const thought = `thinking about: ${text}`;
      usage.reasoning = tokens(thought);
      for (const part of chunks(thought)) await handlers.onThinkingDelta?.(part);
      await handlers.onThinking(thought);
    }
    return stream(`echo: ${text}`);
  }
}
