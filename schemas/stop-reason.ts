/**
 * StopReason: why a turn ended, the `stop_reason` of a `session.status_idle` payload. The spec's three
 * shapes, and `budget_exceeded` (a spend budget reached between model calls; see the decisions).
 */
export const stopReasonSchema = {
  $id: "stop-reason",
  title: "StopReason",
  oneOf: [
    { type: "object", required: ["type"], additionalProperties: false, properties: { type: { const: "end_turn" } } },
    {
      type: "object",
      required: ["type", "message"],
      additionalProperties: false,
      properties: { type: { const: "error" }, message: { type: "string" } },
    },
    {
      type: "object",
      required: ["type", "event_ids"],
      additionalProperties: false,
      properties: {
        type: { const: "requires_action" },
        event_ids: { type: "array", items: { type: "string" }, description: "The request events awaiting an answer." },
      },
    },
    {
      type: "object",
      required: ["type", "scope", "limit_usd", "spent_usd"],
      additionalProperties: false,
      properties: {
        type: { const: "budget_exceeded" },
        scope: { enum: ["session", "subject"], description: "Whose budget: the session's, or its subject's with the agent." },
        limit_usd: { type: "number", minimum: 0 },
        spent_usd: { type: "number", minimum: 0 },
      },
    },
  ],
} as const;
