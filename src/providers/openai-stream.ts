/**
 * One Chat Completions stream read chunk by chunk: text, reasoning (the `reasoning_content` or `reasoning`
 * deltas compatible servers send), tool calls whose arguments arrive in fragments (several at once, by
 * index), refusals, the finish reason and the usage chunk. The reader only accumulates and reports to
 * the handlers; what ends the answer badly is `outcome`'s to say.
 */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { newId } from "../ids.js";
import type { StreamHandlers, TokenUsage, ToolUse } from "./provider.js";
import type { Emit } from "./stream-attempt.js";

/** The reasoning fields compatible servers add to a delta (vLLM, DeepSeek, Ollama, OpenRouter, LiteLLM). */
interface ReasoningDelta {
  reasoning_content?: string | null;
  reasoning?: string | null;
}

interface Call {
  id: string;
  name: string;
  args: string;
  announced: boolean;
}

export class ChatStreamReader {
  text = "";
  refusal = "";
  finishReason: string | null = null;
  readonly usage: TokenUsage = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };
  private thinking = "";
  private thinkingChars = 0;
  private reportedReasoning: number | undefined;
  private readonly calls = new Map<number, Call>();
  private readonly usedIds = new Set<string>();

  constructor(
    private readonly handlers: StreamHandlers,
    private readonly emit: Emit,
  ) {}

  async chunk(chunk: ChatCompletionChunk): Promise<void> {
    if (chunk.usage) this.count(chunk.usage);
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & ReasoningDelta;
    const reasoning = delta.reasoning_content || delta.reasoning;
    if (reasoning) {
      this.thinking += reasoning;
      if (this.handlers.onThinkingDelta) await this.emit(() => this.handlers.onThinkingDelta!(reasoning));
    }
    if (delta.content) {
      await this.endThinking();
      const text = delta.content;
      this.text += text;
      await this.emit(() => this.handlers.onTextDelta(text));
    }
    if (delta.refusal) this.refusal += delta.refusal;
    for (const [i, part] of (delta.tool_calls ?? []).entries()) await this.toolCallPart(part.index ?? i, part);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  private async toolCallPart(index: number, part: ChatCompletionChunk.Choice.Delta.ToolCall): Promise<void> {
    await this.endThinking();
    let call = this.calls.get(index);
    if (!call) this.calls.set(index, (call = { id: "", name: "", args: "", announced: false }));
    if (part.id && !call.id) call.id = part.id;
    if (part.function?.name && !call.name) call.name = part.function.name;
    if (part.function?.arguments) call.args += part.function.arguments;
    if (!call.announced && call.name) {
      call.id = this.freshId(call.id);
      call.announced = true;
      const { id, name } = call;
      if (this.handlers.onToolUseStreaming) await this.emit(() => this.handlers.onToolUseStreaming!({ id, name }), true);
    }
  }

  /**
   * The model's id, which names the call's provisional frames (the worker gives each call an event id of
   * its own, which the transcript then uses); one of ours when a server sends none or repeats one.
   */
  private freshId(given: string): string {
    const id = given && !this.usedIds.has(given) ? given : newId("call");
    this.usedIds.add(id);
    return id;
  }

  /** A reasoning block ends when the answer or a tool call begins, or with the stream. */
  async endThinking(): Promise<void> {
    if (!this.thinking) return;
    const whole = this.thinking;
    this.thinking = "";
    this.thinkingChars += whole.length;
    await this.emit(() => this.handlers.onThinking(whole));
  }

  /** The tool calls, in index order; `input` undefined when the arguments are not valid JSON. */
  async toolUses(): Promise<ToolUse[]> {
    const uses: ToolUse[] = [];
    for (const [, call] of [...this.calls].sort(([a], [b]) => a - b)) {
      const id = call.announced ? call.id : this.freshId(call.id);
      const input = parseArguments(call.args);
      uses.push({ id, name: call.name, input });
      if (input !== undefined && this.handlers.onToolUseStreaming)
        await this.emit(() => this.handlers.onToolUseStreaming!({ id, name: call.name, input }), true);
    }
    return uses;
  }

  /** Prompt tokens include the cached ones, which are counted apart; reasoning is the server's figure, else estimated (4 characters a token). */
  private count(u: CompletionUsage): void {
    const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
    this.usage.input = Math.max(0, (u.prompt_tokens ?? 0) - cached);
    this.usage.cache_read = cached;
    this.usage.output = u.completion_tokens ?? 0;
    this.reportedReasoning = u.completion_tokens_details?.reasoning_tokens ?? this.reportedReasoning;
  }

  /** The tokens this stream reported, reasoning included. */
  tokens(): TokenUsage {
    return { ...this.usage, reasoning: this.reportedReasoning ?? Math.ceil((this.thinkingChars + this.thinking.length) / 4) };
  }
}

/** A tool's input from its accumulated JSON; `{}` when the model sent none, undefined when broken or cut off. */
function parseArguments(args: string): unknown {
  if (!args.trim()) return {};
  try {
    const input = JSON.parse(args) as unknown;
    return typeof input === "object" && input !== null && !Array.isArray(input) ? input : undefined;
  } catch {
    return undefined;
  }
}
