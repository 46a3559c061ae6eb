/** The one interface every model provider implements; the turn engine knows nothing else of models. */
import type { Attachment } from "../domain/events.js";

export type ModelMessage =
  | { role: "user"; text: string; attachments?: Attachment[] }
  | { role: "assistant"; text: string };

export interface ModelRequest {
  model: string;
  system: string;
  messages: ModelMessage[];
  /** Guidance the user sent with `user.steer` since the previous model call. */
  steers: string[];
  signal: AbortSignal;
}

export interface StreamHandlers {
  onTextDelta(text: string): Promise<void>;
  onThinking(text: string): Promise<void>;
}

export interface TokenUsage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
}

export type ModelResult =
  | { ok: true; text: string; usage: TokenUsage; contextMax: number }
  | { ok: false; error: string; usage: TokenUsage; contextMax: number };

export interface ModelProvider {
  call(request: ModelRequest, handlers: StreamHandlers): Promise<ModelResult>;
}

export class ProviderUnavailable extends Error {}

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
