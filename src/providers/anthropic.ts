/**
 * The `anthropic/<model>` provider: the Messages API through `@anthropic-ai/sdk`, streamed.
 *
 * Retries are ours, not the SDK's (`maxRetries: 0`), so the policy is explicit and testable: transient
 * failures (429, 529, 408, any 5xx, connection errors, timeouts, a stream that ends early or reports
 * an overloaded/api/rate-limit error) are retried with exponential backoff, but only while nothing has
 * reached the handlers, since the caller cannot take back a delta it has already published.
 */
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import { ANTHROPIC_READS, requestBody } from "./anthropic-request.js";
import {
  isAbort,
  sleep,
  type ModelInputs,
  type ModelProvider,
  type ModelRequest,
  type ModelResult,
  type StreamHandlers,
  type TokenUsage,
  type ToolUse,
} from "./provider.js";
import { AttemptFailure, describe, isTransient } from "./anthropic-errors.js";
import { retryAfterMs } from "./retry-after.js";

const CONTEXT_MAX = 200_000;
const MAX_BACKOFF_MS = 30_000;

export interface AnthropicOptions {
  apiKey: string | undefined;
  baseURL?: string | undefined;
  maxAttempts?: number;
  retryBaseMs?: number;
  maxTokens?: number;
  /** Longest wait for the response headers, and then for each next stream event. */
  timeoutMs?: number;
  /** Extended thinking's token budget for models that support it; 0 turns it off (see anthropic-request.ts). */
  thinkingBudget?: number;
}

/** Wraps an error thrown by a handler, so it reaches the caller unchanged (e.g. a lost lock). */
class HandlerFailure {
  constructor(readonly error: unknown) {}
}

const emptyUsage = (): TokenUsage => ({ input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 });

const abortError = (): DOMException => new DOMException("aborted", "AbortError");

export class AnthropicProvider implements ModelProvider {
  readonly reads: ModelInputs = ANTHROPIC_READS;
  private readonly client: Anthropic | undefined;
  private readonly apiKey: string | undefined;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly maxTokens: number;
  private readonly timeoutMs: number;
  private readonly thinkingBudget: number;

  constructor({ apiKey, baseURL, maxAttempts = 4, retryBaseMs = 500, maxTokens = 8192, timeoutMs = 600_000, thinkingBudget = 0 }: AnthropicOptions) {
    this.thinkingBudget = thinkingBudget;
    this.apiKey = apiKey || undefined;
    this.maxAttempts = Math.max(1, maxAttempts);
    this.retryBaseMs = retryBaseMs;
    this.maxTokens = maxTokens;
    this.timeoutMs = timeoutMs;
    // Without a key no client is built: the SDK would otherwise go looking for credentials elsewhere
    // (environment, profiles on disk), and a session should fail plainly instead.
    if (this.apiKey) {
      this.client = new Anthropic({
        apiKey: this.apiKey,
        // null, not undefined: the service's config is the one place that reads ANTHROPIC_BASE_URL.
        baseURL: baseURL ?? null,
        maxRetries: 0,
        timeout: timeoutMs,
        logLevel: "off",
      });
    }
  }

  async call(request: ModelRequest, handlers: StreamHandlers): Promise<ModelResult> {
    const usage = emptyUsage();
    if (!this.client) return { ok: false, error: "ANTHROPIC_API_KEY is not set", usage, contextMax: CONTEXT_MAX };
    const params = await requestBody(request, this.maxTokens, this.thinkingBudget);
    // Anything delivered to the handlers makes a retry impossible (see the header comment).
    const progress = { emitted: false };

    for (let attempt = 1; ; attempt++) {
      if (request.signal.aborted) throw abortError();
      try {
        return await this.attempt(this.client, params, request.signal, handlers, usage, progress);
      } catch (err) {
        if (err instanceof HandlerFailure) throw err.error;
        if (request.signal.aborted) throw isAbort(err) ? err : abortError();
        const transient = isTransient(err);
        const what = this.redact(describe(err, this.timeoutMs));
        const fail = (error: string): ModelResult => ({ ok: false, error, usage, contextMax: CONTEXT_MAX });
        if (err instanceof AttemptFailure && err.complete) return fail(what);
        if (progress.emitted) return fail(`the anthropic API failed during the response: ${what}`);
        if (!transient) return fail(`the anthropic API refused the request: ${what}`);
        if (attempt >= this.maxAttempts) return fail(`the anthropic API failed after ${attempt} attempt${attempt === 1 ? "" : "s"}: ${what}`);
        await sleep(this.backoff(err, attempt - 1), request.signal);
      }
    }
  }

  private async attempt(
    client: Anthropic,
    params: MessageCreateParamsStreaming,
    signal: AbortSignal,
    handlers: StreamHandlers,
    usage: TokenUsage,
    progress: { emitted: boolean },
  ): Promise<ModelResult> {
    // One controller per attempt: it follows the caller's signal and also fires when the stream
    // stalls, since the SDK's own timeout only covers the wait for the response headers.
    const controller = new AbortController();
    const follow = () => controller.abort();
    signal.addEventListener("abort", follow, { once: true });
    let stalled = false;
    let idle: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        stalled = true;
        controller.abort();
      }, this.timeoutMs);
    };
    // A provisional frame (a tool call being written) does not bar a retry: the caller takes none as said.
    const emit = async (fn: () => Promise<void>, provisional = false) => {
      if (!provisional) progress.emitted = true;
      try {
        await fn();
      } catch (err) {
        throw new HandlerFailure(err);
      }
    };

    const blocks = new Map<number, { type: string; text: string; id: string; name: string; signature: string }>();
    const toolUses: ToolUse[] = [];
    let text = "";
    let thinkingChars = 0;
    let stopped = false;
    let stopReason: string | null = null;
    const call = emptyUsage();

    try {
      arm();
      const { data: stream, response } = await client.messages.create(params, { signal: controller.signal }).withResponse();
      // A proxy that drops `stream: true` answers JSON: the SDK would read it as a stream that ended early, and retry.
      const type = response.headers.get("content-type") ?? "none";
      if (!type.startsWith("text/event-stream")) {
        controller.abort(); // its body is not read
        throw new AttemptFailure(`the anthropic API answered a streaming request with content-type ${type}, not text/event-stream`, false, true);
      }
      for await (const event of stream) {
        arm();
        switch (event.type) {
          case "message_start": {
            const u = event.message.usage;
            call.input = u.input_tokens ?? 0;
            call.output = u.output_tokens ?? 0;
            call.cache_write = u.cache_creation_input_tokens ?? 0;
            call.cache_read = u.cache_read_input_tokens ?? 0;
            break;
          }
          case "content_block_start": {
            const b = event.content_block;
            blocks.set(event.index, {
              type: b.type,
              text: "",
              id: b.type === "tool_use" ? b.id : "",
              name: b.type === "tool_use" ? b.name : "",
              signature: "",
            });
            if (b.type === "tool_use" && handlers.onToolUseStreaming) await emit(() => handlers.onToolUseStreaming!({ id: b.id, name: b.name }), true);
            break;
          }
          case "content_block_delta": {
            const block = blocks.get(event.index);
            const d = event.delta;
            if (d.type === "text_delta") {
              text += d.text;
              await emit(() => handlers.onTextDelta(d.text));
            } else if (d.type === "thinking_delta" && block) {
              block.text += d.thinking;
              if (handlers.onThinkingDelta) await emit(() => handlers.onThinkingDelta!(d.thinking));
            } else if (d.type === "signature_delta" && block) {
              block.signature += d.signature;
            } else if (d.type === "input_json_delta" && block) {
              block.text += d.partial_json;
            }
            break;
          }
          case "content_block_stop": {
            const block = blocks.get(event.index);
            if (block?.type === "thinking" && block.text) {
              thinkingChars += block.text.length;
              await emit(() => handlers.onThinking(block.text, block.signature || undefined));
            } else if (block?.type === "tool_use") {
              const input = parseInput(block);
              toolUses.push({ id: block.id, name: block.name, input });
              if (input !== undefined && handlers.onToolUseStreaming)
                await emit(() => handlers.onToolUseStreaming!({ id: block.id, name: block.name, input }), true);
            }
            break;
          }
          case "message_delta": {
            // message_delta counts are cumulative for the message, so they replace the start's.
            const u = event.usage;
            if (u.input_tokens != null) call.input = u.input_tokens;
            if (u.cache_creation_input_tokens != null) call.cache_write = u.cache_creation_input_tokens;
            if (u.cache_read_input_tokens != null) call.cache_read = u.cache_read_input_tokens;
            call.output = u.output_tokens ?? call.output;
            stopReason = event.delta.stop_reason ?? stopReason;
            break;
          }
          case "message_stop":
            stopped = true;
            break;
        }
      }
    } catch (err) {
      if (stalled && !signal.aborted) throw new AttemptFailure(`timed out after ${this.timeoutMs} ms without a response`, true);
      throw err;
    } finally {
      clearTimeout(idle);
      signal.removeEventListener("abort", follow);
      // Tokens the API reported are counted even when the attempt then failed: they may be billed.
      addUsage(usage, call);
      // Reasoning is an estimate (about 4 characters a token): the API counts thinking inside
      // output_tokens and reports no separate figure.
      usage.reasoning += Math.ceil(thinkingChars / 4);
    }
    // The SDK ends the iteration quietly when its signal aborts, so an abort or a stall shows up here.
    if (signal.aborted) throw abortError();
    if (stalled) throw new AttemptFailure(`timed out after ${this.timeoutMs} ms without a response`, true);
    if (!stopped) throw new AttemptFailure("the response stream ended before message_stop", true);
    const broken = toolUses.find((t) => t.input === undefined);
    if (broken) {
      const why = stopReason === "max_tokens" ? `was cut off at max_tokens (${this.maxTokens})` : "is not valid JSON";
      throw new AttemptFailure(`the anthropic model's input for tool ${broken.name} ${why}`, false, true);
    }
    return { ok: true, text, toolUses, usage, contextMax: CONTEXT_MAX };
  }

  /** retryBaseMs·2^n, or what the server asks for in `retry-after`; never more than 30 s. */
  private backoff(err: unknown, n: number): number {
    const asked = err instanceof APIError ? retryAfterMs(err.headers) : undefined;
    return Math.min(asked ?? this.retryBaseMs * 2 ** n, MAX_BACKOFF_MS);
  }

  /** The key never appears in a message, even if some layer were to echo it. */
  private redact(message: string): string {
    return this.apiKey ? message.split(this.apiKey).join("[redacted]") : message;
  }
}

function addUsage(total: TokenUsage, call: TokenUsage): void {
  total.input += call.input;
  total.output += call.output;
  total.cache_read += call.cache_read;
  total.cache_write += call.cache_write;
}

/** A tool's input from its accumulated JSON; `{}` when the model sent none, undefined when cut off. */
function parseInput(block: { text: string }): unknown {
  if (!block.text.trim()) return {};
  try {
    return JSON.parse(block.text) as unknown;
  } catch {
    return undefined;
  }
}
