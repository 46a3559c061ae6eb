/** UserApprovalResponse: Allows or denies a pending tool approval (`approval_id` is the request event's id). */
export const userApprovalResponseSchema = {
  $id: "user-approval-response",
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
} as const;
