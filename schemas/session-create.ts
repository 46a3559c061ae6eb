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
  },
} as const;
