/** A session's spend limit as its create and update bodies take it (one definition, inlined in both; not a schema file of its own, which would be a component). */
export const budgetLimitProperty = {
  type: "object",
  description: "Spend limit in US dollars for the session's turns; null for none. A turn that reaches it ends with stop_reason budget_exceeded.",
  additionalProperties: false,
  required: ["limitUsd"],
  properties: { limitUsd: { type: ["number", "null"], exclusiveMinimum: 0, maximum: 1_000_000 } },
} as const;

/** SessionCreate */
export const sessionCreateSchema = {
  $id: "session-create",
  title: "SessionCreate",
  type: "object",
  required: ["agentId", "subjectId"],
  additionalProperties: false,
  properties: {
    agentId: { type: "string", minLength: 1, maxLength: 100 },
    subjectId: { $ref: "subject-id" },
    role: { type: "string", minLength: 1, maxLength: 200 },
    title: { type: "string", minLength: 1, maxLength: 200 },
    yoloMode: { type: "boolean" },
    metadata: { $ref: "metadata" },
    budget: budgetLimitProperty,
  },
} as const;
