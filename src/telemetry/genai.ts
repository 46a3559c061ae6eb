/**
 * Spans of model and tool calls, named and described by the OpenTelemetry GenAI semantic conventions
 * (`chat {model}`, `execute_tool {tool}`). Content (prompts, messages, tool arguments and results) goes
 * in only when `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, cut to a bounded length.
 */
import type { ModelRequest, ModelResult } from "../providers/provider.js";
import { capturingContent, failed, SpanKind, tracing, withSpan, type Attributes } from "./tracing.js";

/** The longest content attribute, in characters: an attachment's data URL must not make a span megabytes long. */
const CONTENT_CHARS = 32_768;

const content = (value: unknown): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length > CONTENT_CHARS ? `${text.slice(0, CONTENT_CHARS)}…` : text;
};

/** Why the model stopped, in the conventions' words: it asked for tools, it finished, or the call failed. */
const finishReason = (result: ModelResult) => (!result.ok ? "error" : result.toolUses.length > 0 ? "tool_call" : "stop");

/**
 * Runs one model call in its CLIENT span. `modelName` is the agent's (`anthropic/claude-…`): its provider
 * part is `gen_ai.provider.name` (and the older `gen_ai.system`). Providers answer no model of their own,
 * so the response model is the one asked for.
 */
export function withModelSpan(modelName: string, request: ModelRequest, call: () => Promise<ModelResult>): Promise<ModelResult> {
  if (!tracing()) return call();
  const provider = modelName.includes("/") ? modelName.slice(0, modelName.indexOf("/")) : modelName;
  const attributes: Attributes = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": provider,
    "gen_ai.system": provider,
    "gen_ai.request.model": request.model,
  };
  if (capturingContent()) {
    attributes["gen_ai.system_instructions"] = content([{ type: "text", content: request.system }]);
    attributes["gen_ai.input.messages"] = content(request.messages);
  }
  return withSpan(
    `chat ${request.model}`,
    attributes,
    async (span) => {
      const result = await call();
      const usage = result.usage;
      span.setAttributes({
        "gen_ai.response.model": request.model,
        // The conventions count cached input among the input tokens; providers report it apart.
        "gen_ai.usage.input_tokens": usage.input + usage.cache_read + usage.cache_write,
        "gen_ai.usage.output_tokens": usage.output,
        "gen_ai.usage.cache_read.input_tokens": usage.cache_read,
        "gen_ai.usage.cache_creation.input_tokens": usage.cache_write,
        "gen_ai.response.finish_reasons": [finishReason(result)],
      });
      if (!result.ok) failed(span, new Error(result.error));
      else if (capturingContent()) {
        const parts = [
          ...(result.text ? [{ type: "text", content: result.text }] : []),
          ...result.toolUses.map((use) => ({ type: "tool_call", id: use.id, name: use.name, arguments: use.input })),
        ];
        span.setAttribute("gen_ai.output.messages", content([{ role: "assistant", parts, finish_reason: finishReason(result) }]));
      }
      return result;
    },
    { kind: SpanKind.CLIENT },
  );
}

export interface ToolSpanCall {
  id: string;
  name: string;
  /** builtin (run by the worker), mcp (by an MCP server), custom (by the caller's application). */
  kind: string;
  input: unknown;
}

/** Runs one tool call in its `execute_tool` span; `ok` and `text` are what the call answered. */
function toolAttributes(call: ToolSpanCall): Attributes {
  const attributes: Attributes = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.name,
    "gen_ai.tool.call.id": call.id,
    "gen_ai.tool.type": call.kind === "mcp" ? "extension" : "function",
    "agent_sessions.tool.kind": call.kind,
  };
  if (capturingContent()) attributes["gen_ai.tool.call.arguments"] = content(call.input);
  return attributes;
}

/**
 * Custom tools run in the caller's application, so no span here can last as long as they do: each call
 * handed out gets a span of the hand-off in the turn's trace, and its result comes back by a request of
 * its own (a POST of `user.custom_tool_result`, traced as any request).
 */
export function customToolsHandedOut(calls: readonly ToolSpanCall[]): void {
  if (!tracing()) return;
  for (const call of calls.filter((c) => c.kind === "custom")) void withSpan(`execute_tool ${call.name}`, toolAttributes(call), () => Promise.resolve());
}

export function withToolSpan<T extends { ok: boolean; text: string }>(call: ToolSpanCall, run: () => Promise<T>): Promise<T> {
  if (!tracing()) return run();
  return withSpan(`execute_tool ${call.name}`, toolAttributes(call), async (span) => {
    const outcome = await run();
    if (!outcome.ok) failed(span, new Error("the tool answered an error"));
    if (capturingContent()) span.setAttribute("gen_ai.tool.call.result", content(outcome.text));
    return outcome;
  });
}
