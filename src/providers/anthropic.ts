/**
 * The `anthropic/<model>` provider: the Messages API through `@anthropic-ai/sdk`, streamed.
 *
 * Retries are ours (`stream-attempt.ts`): transient failures (429, 529, 408, any 5xx, connection errors,
 * timeouts, a stream that ends early or reports an overloaded/api/rate-limit error) are retried, but only
 * while nothing has reached the handlers.
 */
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import { ANTHROPIC_READS, requestBody } from "./anthropic-request.js";
import type { ModelInputs, ModelProvider, ModelRequest, ModelResult, StreamHandlers, TokenUsage, ToolUse } from "./provider.js";
import { describe, isTransient } from "./anthropic-errors.js";
import { AttemptFailure, StreamAttempt, withRetries, type Progress, type RetryPolicy } from "./stream-attempt.js";
import { addUsage } from "./usage.js";

const CONTEXT_MAX = 200_000;

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

const emptyUsage = (): TokenUsage => ({ input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 });

export class AnthropicProvider implements ModelProvider {
  readonly reads: ModelInputs = ANTHROPIC_READS;
  private readonly client: Anthropic | undefined;
  private readonly apiKey: string | undefined;
  private readonly retries: RetryPolicy;
  private readonly maxTokens: number;
  private readonly timeoutMs: number;
  private readonly thinkingBudget: number;

  constructor({ apiKey, baseURL, maxAttempts = 4, retryBaseMs = 500, maxTokens = 8192, timeoutMs = 600_000, thinkingBudget = 0 }: AnthropicOptions) {
    this.thinkingBudget = thinkingBudget;
    this.apiKey = apiKey || undefined;
    this.maxTokens = maxTokens;
    this.timeoutMs = timeoutMs;
    this.retries = {
      api: "the anthropic API",
      maxAttempts: Math.max(1, maxAttempts),
      retryBaseMs,
      describe: (err) => this.redact(describe(err, timeoutMs)),
      isTransient,
      headers: (err) => (err instanceof APIError ? err.headers : undefined),
    };
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
    const client = this.client;
    if (!client) return { ok: false, error: "ANTHROPIC_API_KEY is not set", usage, contextMax: CONTEXT_MAX };
    const params = await requestBody(request, this.maxTokens, this.thinkingBudget);
    return withRetries<ModelResult>(
      request.signal,
      this.retries,
      (progress) => this.attempt(client, params, request.signal, handlers, usage, progress),
      (error) => ({ ok: false, error, usage, contextMax: CONTEXT_MAX }),
    );
  }

  private async attempt(
    client: Anthropic,
    params: MessageCreateParamsStreaming,
    signal: AbortSignal,
    handlers: StreamHandlers,
    usage: TokenUsage,
    progress: Progress,
  ): Promise<ModelResult> {
    const attempt = new StreamAttempt({ signal, timeoutMs: this.timeoutMs, api: this.retries.api, progress });
    const emit = attempt.emit;
    const blocks = new Map<number, { type: string; text: string; id: string; name: string; signature: string }>();
    const toolUses: ToolUse[] = [];
    let text = "";
    let thinkingChars = 0;
    let stopped = false;
    let stopReason: string | null = null;
    const call = emptyUsage();

    const read = async () => {
      for await (const event of attempt.events((s) => client.messages.create(params, { signal: s }).withResponse())) {
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
    };
    await attempt.run(read, () => {
      // Tokens the API reported are counted even when the attempt then failed: they may be billed.
      addUsage(usage, call);
      // Reasoning is an estimate (about 4 characters a token): the API counts thinking inside
      // output_tokens and reports no separate figure.
      usage.reasoning += Math.ceil(thinkingChars / 4);
    });
    if (!stopped) throw new AttemptFailure("the response stream ended before message_stop", true);
    const broken = toolUses.find((t) => t.input === undefined);
    if (broken) {
      const why = stopReason === "max_tokens" ? `was cut off at max_tokens (${this.maxTokens})` : "is not valid JSON";
      throw new AttemptFailure(`the anthropic model's input for tool ${broken.name} ${why}`, false, true);
    }
    return { ok: true, text, toolUses, usage, contextMax: CONTEXT_MAX };
  }

  /** The key never appears in a message, even if some layer were to echo it. */
  private redact(message: string): string {
    return this.apiKey ? message.split(this.apiKey).join("[redacted]") : message;
  }
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
