/**
 * The payloads of the events the service writes (`agent.*`, `session.*`), one schema per type: the
 * spec's events table, field by field, as the worker and the send path write them. `EventPayload`
 * (`event-payload.ts`) joins them with the inbound events' into the envelope's `payload`, so the
 * document, and the client's event union generated from it, type each event by its `type`.
 */
const payload = <T extends string, P extends Record<string, unknown>, R extends readonly string[]>(
  id: string,
  title: string,
  type: T,
  properties: P,
  required: R,
) =>
  ({
    $id: id,
    title,
    type: "object",
    required: ["type", ...required] as const,
    additionalProperties: false,
    properties: { type: { const: type }, ...properties },
  }) as const;

const toolUse = { id: { type: "string" }, tool: { type: "string" }, input: { description: "The call's arguments, as the model wrote them." } } as const;
const message = {
  content: { $ref: "text-content" },
  delta: { type: "boolean", description: "`true`: a live-only chunk of the text; `false`: the complete, durable event." },
} as const;
const streaming = { description: "`streaming` on the live-only frame of a call the model is still writing (its id and input not final)." } as const;
const toolResult = {
  tool_use_id: { type: "string" },
  tool: { type: "string" },
  status: { enum: ["completed", "failed"] },
  content: { $ref: "text-content" },
  is_error: { type: "boolean" },
  input: { description: "On a call denied before it ran (it had no tool-use event): its arguments." },
  model_call_id: { type: "string", description: "On a call denied before it ran: the model answer it belongs to." },
} as const;

export const sessionStatusRunningSchema = payload("session-status-running", "SessionStatusRunning", "session.status_running", {}, []);
export const sessionStatusIdleSchema = payload("session-status-idle", "SessionStatusIdle", "session.status_idle", { stop_reason: { $ref: "stop-reason" } }, [
  "stop_reason",
]);
export const sessionTitleUpdatedSchema = payload("session-title-updated", "SessionTitleUpdated", "session.title_updated", { title: { type: "string" } }, [
  "title",
]);
export const sessionCompactedSchema = payload(
  "session-compacted",
  "SessionCompacted",
  "session.compacted",
  {
    trigger: { enum: ["auto", "manual"] },
    summary: { type: "string" },
    kept_turn: { type: ["string", "null"], description: "The turn whose messages were kept as they are, or null: all were summarized." },
    messages_summarized: { type: "integer", minimum: 0 },
    context_before: { type: "integer", minimum: 0 },
    context_max: { type: "integer", minimum: 0 },
  },
  ["trigger", "summary", "kept_turn", "messages_summarized", "context_before", "context_max"],
);
export const sessionToolUpdatedSchema = payload(
  "session-tool-updated",
  "SessionToolUpdated",
  "session.tool_updated",
  {
    tool_use_id: { type: "string" },
    event_id: { type: "string", description: "The event to patch: its payload becomes `payload`." },
    payload: { anyOf: [{ $ref: "user-custom-tool-result" }, { type: "null" }], description: "null when too large for the live stream: read the event again." },
  },
  ["tool_use_id", "event_id", "payload"],
);
export const agentMessageSchema = payload("agent-message", "AgentMessage", "agent.message", message, ["content", "delta"]);
export const agentThinkingSchema = payload("agent-thinking", "AgentThinking", "agent.thinking", { ...message, signature: { type: "string" } }, [
  "content",
  "delta",
]);
export const agentApprovalRequestSchema = payload(
  "agent-approval-request",
  "AgentApprovalRequest",
  "agent.approval_request",
  { tool_use_id: { type: "string" }, tool: { type: "string" }, tool_type: { enum: ["builtin", "mcp", "custom", "clarify"] }, input: toolUse.input },
  ["tool_use_id", "tool", "tool_type", "input"],
);
const toolUseProperties = {
  ...toolUse,
  status: { enum: ["running", "streaming"], ...streaming },
  preview: { type: "string" },
  requires_action: { type: "boolean" },
};
export const agentToolUseSchema = payload("agent-tool-use", "AgentToolUse", "agent.tool_use", toolUseProperties, ["id", "tool", "input", "status"]);
export const agentMcpToolUseSchema = payload("agent-mcp-tool-use", "AgentMcpToolUse", "agent.mcp_tool_use", toolUseProperties, [
  "id",
  "tool",
  "input",
  "status",
]);
export const agentToolResultSchema = payload("agent-tool-result", "AgentToolResult", "agent.tool_result", toolResult, [
  "tool_use_id",
  "tool",
  "status",
  "content",
  "is_error",
]);
export const agentMcpToolResultSchema = payload("agent-mcp-tool-result", "AgentMcpToolResult", "agent.mcp_tool_result", toolResult, [
  "tool_use_id",
  "tool",
  "status",
  "content",
  "is_error",
]);
export const agentCustomToolUseSchema = payload(
  "agent-custom-tool-use",
  "AgentCustomToolUse",
  "agent.custom_tool_use",
  { ...toolUse, status: { const: "streaming", ...streaming } },
  ["id", "tool", "input"],
);
export const agentClarifyRequestSchema = payload(
  "agent-clarify-request",
  "AgentClarifyRequest",
  "agent.clarify_request",
  { request_id: { type: "string" }, question: { type: "string" }, choices: { anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] } },
  ["request_id", "question", "choices"],
);
const threadMessage = {
  thread_id: { type: "string", description: "The child thread: a session of its own, whose `parent` names this session and call." },
  tool_use_id: { type: "string", description: "The delegation call (its `agent.tool_use` event) the thread answers." },
  content: { $ref: "text-content" },
} as const;
export const agentThreadMessageSentSchema = payload(
  "agent-thread-message-sent",
  "AgentThreadMessageSent",
  "agent.thread_message_sent",
  { ...threadMessage, content: { ...threadMessage.content, description: "The task the agent delegated: the thread's first message." } },
  ["thread_id", "tool_use_id", "content"],
);
export const agentThreadMessageReceivedSchema = payload(
  "agent-thread-message-received",
  "AgentThreadMessageReceived",
  "agent.thread_message_received",
  { ...threadMessage, content: { ...threadMessage.content, description: "The thread's answer: the messages of its turn, or why it ended without one." } },
  ["thread_id", "tool_use_id", "content"],
);

export const OUTBOUND_EVENT_SCHEMAS = [
  sessionStatusRunningSchema,
  sessionStatusIdleSchema,
  sessionTitleUpdatedSchema,
  sessionCompactedSchema,
  sessionToolUpdatedSchema,
  agentMessageSchema,
  agentThinkingSchema,
  agentApprovalRequestSchema,
  agentToolUseSchema,
  agentMcpToolUseSchema,
  agentToolResultSchema,
  agentMcpToolResultSchema,
  agentCustomToolUseSchema,
  agentClarifyRequestSchema,
  agentThreadMessageSentSchema,
  agentThreadMessageReceivedSchema,
] as const;
