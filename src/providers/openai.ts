/**
 * The OpenAI-compatible providers: `openai/<model>` and each named endpoint (`local/<model>`), over Chat
 * Completions through the `openai` SDK, streamed (see docs/decisions/models-and-providers.md for why Chat
 * Completions).
 *
 * Retries are ours, not the SDK's (`maxRetries: 0`), as for Anthropic: transient failures (408, 409, 429,
 * 5xx, connection errors, timeouts, a stream cut before its finish reason) are retried with exponential
 * backoff honouring `retry-after`, but only while nothing has reached the handlers.
 */
import OpenAI, { APIError } from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { isAbort, sleep, type ModelInputs, type ModelProvider, type ModelRequest, type ModelResult, type StreamHandlers, type TokenUsage } from "./provider.js";
import { AttemptFailure, describe, isTransient } from "./openai-errors.js";
import { chatRequestBody, OPENAI_READS, type MaxTokensField } from "./openai-request.js";
import { ChatStreamReader, type Emit } from "./openai-stream.js";
import { DEFAULT_CONTEXT_WINDOW, openAiContextWindow } from "./openai-models.js";
import { retryAfterMs } from "./retry-after.js";

const MAX_BACKOFF_MS = 30_000;

export interface OpenAiOptions {
  /** The `<provider>` this endpoint serves, named in errors. */
  name: string;
  apiKey: string | undefined;
  /** The variable the key comes from, named when it is missing; undefined: the endpoint takes no key. */
  apiKeyEnv: string | undefined;
  /** Undefined: OpenAI's own API. */
  baseURL: string | undefined;
  /** Every model's window; undefined: OpenAI's table for `openai`, else the default. */
  contextWindow?: number | undefined;
  maxAttempts?: number;
  retryBaseMs?: number;
  maxTokens?: number;
  /** Longest wait for the response headers, and then for each next chunk. */
  timeoutMs?: number;
}

/** Wraps an error thrown by a handler, so it reaches the caller unchanged (e.g. a lost lock). */
class HandlerFailure {
  constructor(readonly error: unknown) {}
}

const abortError = (): DOMException => new DOMException("aborted", "AbortError");

function addUsage(total: TokenUsage, call: TokenUsage): void {
  total.input += call.input;
  total.output += call.output;
  total.cache_read += call.cache_read;
  total.cache_write += call.cache_write;
  total.reasoning += call.reasoning;
}

export class OpenAiProvider implements ModelProvider {
  readonly reads: ModelInputs = OPENAI_READS;
  private readonly client: OpenAI | undefined;
  private readonly missing: string | undefined;
  private readonly name: string;
  private readonly apiKey: string | undefined;
  private readonly contextWindow: number | undefined;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly maxTokens: number;
  private readonly maxTokensField: MaxTokensField;
  private readonly timeoutMs: number;

  constructor(o: OpenAiOptions) {
    this.name = o.name;
    this.apiKey = o.apiKey || undefined;
    this.contextWindow = o.contextWindow;
    this.maxAttempts = Math.max(1, o.maxAttempts ?? 4);
    this.retryBaseMs = o.retryBaseMs ?? 500;
    this.maxTokens = o.maxTokens ?? 8192;
    this.timeoutMs = o.timeoutMs ?? 600_000;
    // OpenAI's API (and Azure's) bounds the answer with max_completion_tokens, as its reasoning models
    // refuse max_tokens; the servers of named endpoints all read max_tokens.
    this.maxTokensField = o.name === "openai" ? "max_completion_tokens" : "max_tokens";
    // OpenAI's own API needs a key; another address (a gateway, a server of one's own) may take none.
    if (!this.apiKey && o.baseURL === undefined) {
      this.missing = `${o.apiKeyEnv ?? "OPENAI_API_KEY"} is not set`;
      return;
    }
    this.client = new OpenAI({
      // Without a key the SDK would read OPENAI_API_KEY itself; the Authorization header is then dropped.
      apiKey: this.apiKey ?? "none",
      ...(this.apiKey ? {} : { defaultHeaders: { authorization: null } }),
      // Always given, and the organization and project null: the service's config is the one place that
      // reads the environment (the SDK would read OPENAI_BASE_URL, OPENAI_ORG_ID, OPENAI_PROJECT_ID).
      baseURL: o.baseURL ?? "https://api.openai.com/v1",
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: this.timeoutMs,
      logLevel: "off",
    });
  }

  private contextMax(model: string): number {
    return this.contextWindow ?? (this.name === "openai" ? openAiContextWindow(model) : DEFAULT_CONTEXT_WINDOW);
  }

  async call(request: ModelRequest, handlers: StreamHandlers): Promise<ModelResult> {
    const usage: TokenUsage = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };
    const prefix = `${this.name}/`;
    const model = request.model.startsWith(prefix) ? request.model.slice(prefix.length) : request.model;
    const contextMax = this.contextMax(model);
    if (!this.client) return { ok: false, error: this.missing ?? "no client", usage, contextMax };
    const params = await chatRequestBody({ ...request, model }, this.maxTokens, this.maxTokensField);
    // Anything delivered to the handlers makes a retry impossible (see the header comment).
    const progress = { emitted: false };
    const fail = (error: string): ModelResult => ({ ok: false, error: this.redact(error), usage, contextMax });

    for (let attempt = 1; ; attempt++) {
      if (request.signal.aborted) throw abortError();
      try {
        const result = await this.attempt(this.client, params, request, handlers, usage, progress);
        return { ...result, contextMax };
      } catch (err) {
        if (err instanceof HandlerFailure) throw err.error;
        if (request.signal.aborted) throw isAbort(err) ? err : abortError();
        const what = describe(err, this.timeoutMs);
        const api = `the ${this.name} API`;
        if (err instanceof AttemptFailure && err.complete) return fail(what);
        if (progress.emitted) return fail(`${api} failed during the response: ${what}`);
        if (!isTransient(err)) return fail(`${api} refused the request: ${what}`);
        if (attempt >= this.maxAttempts) return fail(`${api} failed after ${attempt} attempt${attempt === 1 ? "" : "s"}: ${what}`);
        await sleep(this.backoff(err, attempt - 1), request.signal);
      }
    }
  }

  private async attempt(
    client: OpenAI,
    params: ChatCompletionCreateParamsStreaming,
    request: ModelRequest,
    handlers: StreamHandlers,
    usage: TokenUsage,
    progress: { emitted: boolean },
  ): Promise<{ ok: true; text: string; toolUses: Awaited<ReturnType<ChatStreamReader["toolUses"]>>; usage: TokenUsage }> {
    const { signal } = request;
    // One controller per attempt: it follows the caller's signal and also fires when the stream stalls,
    // since the SDK's own timeout only covers the wait for the response headers.
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
    const emit: Emit = async (fn, provisional = false) => {
      if (!provisional) progress.emitted = true;
      try {
        await fn();
      } catch (err) {
        throw new HandlerFailure(err);
      }
    };
    const reader = new ChatStreamReader(handlers, emit);
    const timedOut = () => new AttemptFailure(`timed out after ${this.timeoutMs} ms without a response`, true);

    try {
      arm();
      const { data: stream, response } = await client.chat.completions.create(params, { signal: controller.signal }).withResponse();
      // A proxy that drops `stream: true` answers JSON, which the SDK would read as a stream that ended early.
      const type = response.headers.get("content-type") ?? "none";
      if (!type.startsWith("text/event-stream")) {
        controller.abort(); // its body is not read
        throw new AttemptFailure(`the ${this.name} API answered a streaming request with content-type ${type}, not text/event-stream`, false, true);
      }
      for await (const chunk of stream) {
        arm();
        await reader.chunk(chunk);
      }
      await reader.endThinking();
    } catch (err) {
      if (stalled && !signal.aborted) throw timedOut();
      throw err;
    } finally {
      clearTimeout(idle);
      signal.removeEventListener("abort", follow);
      // Tokens the server reported are counted even when the attempt then failed: they may be billed.
      addUsage(usage, reader.tokens());
    }
    // The SDK ends the iteration quietly when its signal aborts, so an abort or a stall shows up here.
    if (signal.aborted) throw abortError();
    if (stalled) throw timedOut();
    return { ok: true, text: reader.text, toolUses: await this.outcome(reader), usage };
  }

  /** The answer's tool calls, or why the answer cannot stand: a refusal, a filter, a cut, broken arguments. */
  private async outcome(reader: ChatStreamReader) {
    const model = `the ${this.name} model`;
    if (reader.refusal) throw new AttemptFailure(`${model} refused: ${reader.refusal}`, false, true);
    if (reader.finishReason === "content_filter") throw new AttemptFailure(`${model}'s answer was stopped by the content filter`, false, true);
    if (reader.finishReason === "length") throw new AttemptFailure(`${model}'s answer was cut off at its token limit (${this.maxTokens})`, false, true);
    if (reader.finishReason === null) throw new AttemptFailure("the response stream ended before a finish reason", true);
    const toolUses = await reader.toolUses();
    const broken = toolUses.find((t) => t.input === undefined);
    if (broken) throw new AttemptFailure(`${model}'s arguments for tool ${broken.name} are not a JSON object`, false, true);
    return toolUses;
  }

  /** retryBaseMs·2^n, or what the server asks for in `retry-after`; never more than 30 s. */
  private backoff(err: unknown, n: number): number {
    const asked = err instanceof APIError ? retryAfterMs(err.headers) : undefined;
    return Math.min(asked ?? this.retryBaseMs * 2 ** n, MAX_BACKOFF_MS);
  }

  /** The key never appears in a message, even if a server echoes it. */
  private redact(message: string): string {
    return this.apiKey ? message.split(this.apiKey).join("[redacted]") : message;
  }
}
