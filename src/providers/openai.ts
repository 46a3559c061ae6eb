/**
 * The OpenAI-compatible providers: `openai/<model>` and each named endpoint (`local/<model>`), over Chat
 * Completions through the `openai` SDK, streamed (see docs/decisions/models-and-providers.md for why Chat
 * Completions).
 *
 * Retries are ours, as for Anthropic (`stream-attempt.ts`): transient failures (408, 409, 429, 5xx,
 * connection errors, timeouts, a stream cut before its finish reason) are retried, but only while nothing
 * has reached the handlers.
 */
import OpenAI, { APIError } from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { ModelInputs, ModelProvider, ModelRequest, ModelResult, StreamHandlers, TokenUsage } from "./provider.js";
import { describe, isTransient } from "./openai-errors.js";
import { chatRequestBody, OPENAI_READS, type MaxTokensField } from "./openai-request.js";
import { ChatStreamReader } from "./openai-stream.js";
import { DEFAULT_CONTEXT_WINDOW, openAiContextWindow } from "./openai-models.js";
import { AttemptFailure, StreamAttempt, withRetries, type Progress, type RetryPolicy } from "./stream-attempt.js";
import { addUsage } from "./usage.js";

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

export class OpenAiProvider implements ModelProvider {
  readonly reads: ModelInputs = OPENAI_READS;
  private readonly client: OpenAI | undefined;
  private readonly missing: string | undefined;
  private readonly name: string;
  private readonly apiKey: string | undefined;
  private readonly contextWindow: number | undefined;
  private readonly retries: RetryPolicy;
  private readonly maxTokens: number;
  private readonly maxTokensField: MaxTokensField;
  private readonly timeoutMs: number;

  constructor(o: OpenAiOptions) {
    this.name = o.name;
    this.apiKey = o.apiKey || undefined;
    this.contextWindow = o.contextWindow;
    this.maxTokens = o.maxTokens ?? 8192;
    this.timeoutMs = o.timeoutMs ?? 600_000;
    this.retries = {
      api: `the ${o.name} API`,
      maxAttempts: Math.max(1, o.maxAttempts ?? 4),
      retryBaseMs: o.retryBaseMs ?? 500,
      describe: (err) => describe(err, this.timeoutMs),
      isTransient,
      headers: (err) => (err instanceof APIError ? err.headers : undefined),
    };
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
    const client = this.client;
    if (!client) return { ok: false, error: this.missing ?? "no client", usage, contextMax };
    const params = await chatRequestBody({ ...request, model }, this.maxTokens, this.maxTokensField);
    return withRetries<ModelResult>(
      request.signal,
      this.retries,
      async (progress) => ({ ...(await this.attempt(client, params, request, handlers, usage, progress)), contextMax }),
      (error) => ({ ok: false, error: this.redact(error), usage, contextMax }),
    );
  }

  private async attempt(
    client: OpenAI,
    params: ChatCompletionCreateParamsStreaming,
    request: ModelRequest,
    handlers: StreamHandlers,
    usage: TokenUsage,
    progress: Progress,
  ): Promise<{ ok: true; text: string; toolUses: Awaited<ReturnType<ChatStreamReader["toolUses"]>>; usage: TokenUsage }> {
    const attempt = new StreamAttempt({ signal: request.signal, timeoutMs: this.timeoutMs, api: this.retries.api, progress });
    const reader = new ChatStreamReader(handlers, attempt.emit);
    await attempt.run(
      async () => {
        for await (const chunk of attempt.events((signal) => client.chat.completions.create(params, { signal }).withResponse())) await reader.chunk(chunk);
        await reader.endThinking();
      },
      // Tokens the server reported are counted even when the attempt then failed: they may be billed.
      () => addUsage(usage, reader.tokens()),
    );
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

  /** The key never appears in a message, even if a server echoes it. */
  private redact(message: string): string {
    return this.apiKey ? message.split(this.apiKey).join("[redacted]") : message;
  }
}
