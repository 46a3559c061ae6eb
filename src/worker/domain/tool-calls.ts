/**
 * The events of a model answer and of its tool calls, as drafts: the answer's text, the decision for
 * each call (run, ask, or deny by policy) and the events that put it in motion, and tool results. Pure.
 */
import { newId } from "../../ids.js";
import type { ToolConfig } from "../../agents/domain/agent-config.js";
import { DENIED_PREFIX } from "./conversation.js";
import { draft, textBlocks, type Draft } from "../../sessions/domain/events.js";
import type { ToolUse } from "../../providers/domain/model-types.js";
import type { ToolCall } from "../../sessions/domain/session-state.js";
import { decide, looksLikeMcpTool, resolveTool, type Grants } from "./tool-permissions.js";
import { toolPreview } from "../../agent-tools/domain/tool-preview.js";

export interface TurnContext {
  sessionId: string;
  turnId: string;
  now: string;
}

/** A complete (durable) `agent.message`. */
export function messageDraft(ctx: TurnContext, text: string): Draft {
  return draft(
    ctx.sessionId,
    newId("evt"),
    { type: "agent.message", content: textBlocks(text), delta: false },
    { turnId: ctx.turnId, status: "complete", now: ctx.now },
  );
}

/**
 * A tool result event. A call denied by policy had no tool-use event, so its result also carries the
 * call's `input` and the `model_call_id` of the model answer it belongs to: the transcript rebuilt
 * from the log needs both.
 */
export function resultDraft(ctx: TurnContext, call: ToolCall, ok: boolean, text: string, deniedInCall?: string): Draft {
  const type = call.kind === "mcp" ? "agent.mcp_tool_result" : "agent.tool_result";
  const unannounced = deniedInCall ? { input: call.input, model_call_id: deniedInCall } : {};
  const payload = {
    type,
    tool_use_id: call.id,
    tool: call.name,
    status: ok ? "completed" : "failed",
    content: textBlocks(text || "(no output)"),
    is_error: !ok,
    ...unannounced,
  };
  return draft(ctx.sessionId, newId("evt"), payload, { turnId: ctx.turnId, status: "complete", now: ctx.now });
}

/** A denied call's result (the user's refusal, or a policy's). */
export function denialDraft(ctx: TurnContext, call: ToolCall, reason: string, deniedInCall?: string): Draft {
  return resultDraft(ctx, call, false, `${DENIED_PREFIX}${reason}`, deniedInCall);
}

/** The events that put an allowed call in motion, and the call's state after them. */
export function useEvents(ctx: TurnContext, call: ToolCall): { call: ToolCall; drafts: Draft[] } {
  const at = { turnId: ctx.turnId, status: "complete" as const, now: ctx.now };
  if (call.kind === "clarify") {
    const { question, choices } = (call.input ?? {}) as { question?: unknown; choices?: unknown };
    const list = Array.isArray(choices) ? choices.map(String) : null;
    return {
      call: { ...call, state: "clarify" },
      drafts: [draft(ctx.sessionId, call.id, { type: "agent.clarify_request", request_id: call.id, question: String(question ?? ""), choices: list }, at)],
    };
  }
  if (call.kind === "custom") {
    return {
      call: { ...call, state: "custom", customSince: ctx.now },
      drafts: [draft(ctx.sessionId, call.id, { type: "agent.custom_tool_use", id: call.id, tool: call.name, input: call.input }, at)],
    };
  }
  const type = call.kind === "mcp" ? "agent.mcp_tool_use" : "agent.tool_use";
  const preview = call.kind === "builtin" ? toolPreview(call.name, call.input) : undefined;
  return {
    call: { ...call, state: "executing" },
    drafts: [
      draft(
        ctx.sessionId,
        call.id,
        { type, id: call.id, tool: call.name, input: call.input, status: "running", ...(preview ? { preview } : {}) },
        { ...at, status: "running" },
      ),
    ],
  };
}

/**
 * The live-only frame of a call the model is still writing (`status: streaming`): the tool-use event
 * type its tool would get, the provider's id and the input so far (`{}` until it is complete). Neither
 * is authoritative, the call is decided when the answer ends; a clarification has no tool-use event.
 */
export function streamingUseDraft(ctx: TurnContext, governing: ToolConfig[], use: { id: string; name: string; input?: unknown }): Draft | null {
  const resolved = resolveTool(governing, use.name);
  if (use.name === "clarify" && resolved) return null;
  const kind = resolved?.kind ?? (looksLikeMcpTool(use.name) ? "mcp" : "builtin");
  const type = kind === "mcp" ? "agent.mcp_tool_use" : kind === "custom" ? "agent.custom_tool_use" : "agent.tool_use";
  const payload = { type, id: use.id, tool: use.name, input: use.input ?? {}, status: "streaming" };
  return { ...draft(ctx.sessionId, newId("evt"), payload, { turnId: ctx.turnId, status: "streaming", now: ctx.now }), liveOnly: true };
}

/**
 * Decides each tool call of a model answer. The answer's events in append order: its text, then approval
 * requests and tool-use events, then policy denials; a tool-use event after results therefore always
 * means a new model call.
 */
export function decideCalls(
  ctx: TurnContext,
  governing: ToolConfig[],
  uses: Pick<ToolUse, "name" | "input">[],
  yoloMode: boolean,
  grants: Grants,
  output: Draft[],
  /** What is wrong with a call's input by its tool's schema (null: nothing); a clarification is checked here, as no tool runs it. */
  inputProblem: (name: string, input: unknown) => string | null = () => null,
): { drafts: Draft[]; calls: ToolCall[] } {
  const drafts = [...output];
  const denials: Draft[] = [];
  const modelCall = newId("call");
  const calls = uses.map((use): ToolCall => {
    const resolved = resolveTool(governing, use.name);
    const decision = decide(resolved, use.name, yoloMode, grants);
    const kind = use.name === "clarify" && resolved ? "clarify" : (resolved?.kind ?? (looksLikeMcpTool(use.name) ? "mcp" : "builtin"));
    const call: ToolCall = { id: newId("evt"), name: use.name, input: use.input ?? {}, kind, state: "done" };
    if (decision.action === "deny") {
      // Written with the model call's other events, so the rebuilt transcript keeps calls apart.
      denials.push(denialDraft(ctx, call, decision.reason, modelCall));
      return call;
    }
    const problem = kind === "clarify" ? inputProblem(call.name, call.input) : null;
    if (problem) {
      denials.push(resultDraft(ctx, call, false, problem, modelCall));
      return call;
    }
    if (decision.action === "ask") {
      const approvalId = newId("evt");
      drafts.push(
        draft(
          ctx.sessionId,
          approvalId,
          { type: "agent.approval_request", tool_use_id: call.id, tool: call.name, tool_type: kind, input: call.input },
          { turnId: ctx.turnId, status: "complete", now: ctx.now },
        ),
      );
      return { ...call, state: "ask", approvalId };
    }
    const started = useEvents(ctx, call);
    drafts.push(...started.drafts);
    return started.call;
  });
  return { drafts: [...drafts, ...denials], calls };
}
