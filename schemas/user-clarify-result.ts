/** UserClarifyResult: The answer to a clarification request; an empty answer lets the agent decide. */
export const userClarifyResultSchema = {
  $id: "user-clarify-result",
  title: "UserClarifyResult",
  type: "object",
  required: ["type", "request_id", "answer"],
  additionalProperties: false,
  properties: {
    type: { const: "user.clarify_result" },
    request_id: { type: "string", minLength: 1, maxLength: 100 },
    answer: { type: "string", maxLength: 20000 },
  },
} as const;
