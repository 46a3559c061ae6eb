/** SessionUpdate: At least one field; metadata replaces the whole object. */
export const sessionUpdateSchema = {
  $id: "session-update",
  title: "SessionUpdate",
  description: "At least one field; metadata replaces the whole object.",
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    title: { type: "string", minLength: 1, maxLength: 200 },
    yoloMode: { type: "boolean" },
    metadata: { $ref: "metadata" },
    budget: {
      type: "object",
      description: "Spend limit in US dollars for the session's turns; null for none. A turn that reaches it ends with stop_reason budget_exceeded.",
      additionalProperties: false,
      required: ["limitUsd"],
      properties: { limitUsd: { type: ["number", "null"], exclusiveMinimum: 0, maximum: 1_000_000 } },
    },
  },
} as const;
