/** The one interface every model provider implements; the turn engine knows nothing else of models. */
import type { ModelBlock, ModelMessage, TokenUsage, ToolSpec, ToolUse } from "./domain/model-types.js";

export type { ModelBlock, ModelMessage, TokenUsage, ToolSpec, ToolUse } from "./domain/model-types.js";

export interface ModelRequest {
  model: string;
  /** The agent's system prompt, with the skills section the turn engine adds (see docs/decisions/models-and-providers.md). */
  system: string;
  /** Shared with the worker's cached transcript: providers read it and never change it. */
  messages: readonly ModelMessage[];
  tools: ToolSpec[];
  /** Guidance the user sent with `user.steer` since the previous model call. */
  steers: string[];
  signal: AbortSignal;
}

export interface StreamHandlers {
  onTextDelta(text: string): Promise<void>;
  /** A reasoning block, whole, once it ends; `signature` when the provider signs it for sending back. */
  onThinking(text: string, signature?: string): Promise<void>;
  /** A chunk of reasoning as it streams (a caller that shows only whole blocks leaves it out). */
  onThinkingDelta?(text: string): Promise<void>;
  /**
   * The model is writing a tool call: once when it starts (`input` undefined) and once when its input is
   * complete. Provisional: the call is decided only when the answer ends.
   */
  onToolUseStreaming?(use: { id: string; name: string; input?: unknown }): Promise<void>;
}

export type ModelResult =
  { ok: true; text: string; toolUses: ToolUse[]; usage: TokenUsage; contextMax: number } | { ok: false; error: string; usage: TokenUsage; contextMax: number };

/** What a provider's models read natively; other attachments reach them as extracted text (`attachment-content.ts`). */
export interface ModelInputs {
  /** Image media types (lower case) sent as images. */
  images: ReadonlySet<string>;
  /** Whether PDFs are sent as documents (else as their extracted text). */
  pdf: boolean;
}

export interface ModelProvider {
  readonly reads: ModelInputs;
  call(request: ModelRequest, handlers: StreamHandlers): Promise<ModelResult>;
}

/** Resolves after `ms`, or rejects with an AbortError as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new DOMException("aborted", "AbortError"));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new DOMException("aborted", "AbortError"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

/** The plain text of a message's text blocks. */
export function textOfBlocks(blocks: ModelBlock[]): string {
  return blocks
    .filter((b): b is { type: "text"; text: string } => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}
