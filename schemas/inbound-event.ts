/** InboundEvent */
export const inboundEventSchema = {
  $id: "inbound-event",
  title: "InboundEvent",
  type: "object",
  required: ["type"],
  properties: { type: { type: "string" } },
  discriminator: { propertyName: "type" },
  oneOf: [
    {
      title: "UserMessage",
      type: "object",
      required: ["type", "content"],
      additionalProperties: false,
      properties: {
        type: { const: "user.message" },
        content: { $ref: "text-content" },
        metadata: { $ref: "metadata" },
        attachments: { type: "array", maxItems: 10, items: { $ref: "attachment" } },
      },
    },
    {
      title: "UserSteer",
      type: "object",
      required: ["type", "message"],
      additionalProperties: false,
      properties: { type: { const: "user.steer" }, message: { type: "string", minLength: 1, maxLength: 20000 } },
    },
    {
      title: "UserInterrupt",
      type: "object",
      required: ["type"],
      additionalProperties: false,
      properties: { type: { const: "user.interrupt" }, message: { type: "string", maxLength: 20000 } },
    },
    {
      title: "UserApprovalResponse",
      type: "object",
      required: ["type", "approval_id", "result"],
      additionalProperties: false,
      properties: {
        type: { const: "user.approval_response" },
        approval_id: { type: "string", minLength: 1, maxLength: 100 },
        result: { enum: ["allow", "deny"] },
        scope: { enum: ["once", "session", "always"] },
      },
    },
    {
      title: "UserCustomToolResult",
      type: "object",
      required: ["type", "tool_use_id", "content"],
      additionalProperties: false,
      properties: {
        type: { const: "user.custom_tool_result" },
        tool_use_id: { type: "string", minLength: 1, maxLength: 100 },
        content: { $ref: "text-content" },
        is_error: { type: "boolean" },
        status: { enum: ["running", "completed", "failed"] },
      },
    },
    {
      title: "UserClarifyResult",
      type: "object",
      required: ["type", "request_id", "answer"],
      additionalProperties: false,
      properties: {
        type: { const: "user.clarify_result" },
        request_id: { type: "string", minLength: 1, maxLength: 100 },
        answer: { type: "string", maxLength: 20000 },
      },
    },
  ],
} as const;
