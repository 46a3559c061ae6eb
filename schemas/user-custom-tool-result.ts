/** UserCustomToolResult: The result of an application-owned tool (`tool_use_id` is the `agent.custom_tool_use` id). */
export const userCustomToolResultSchema = {
  $id: "user-custom-tool-result",
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
} as const;
