/**
 * UserApprovalResponse: Allows or denies a pending tool approval (`approval_id` is the request event's id).
 * `reason`, beyond the spec's fields, tells the model why a call was denied (decisions: events).
 */
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
    reason: {
      type: "string",
      minLength: 1,
      maxLength: 2000,
      description: "With deny: why, given to the model in the denial (the tool result it reads); an allow leaves it unread.",
    },
  },
} as const;
