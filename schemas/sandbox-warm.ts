/** SandboxWarm */
export const sandboxWarmSchema = {
  $id: "sandbox-warm",
  title: "SandboxWarm",
  type: "object",
  required: ["agentId", "subjectId"],
  additionalProperties: false,
  properties: { agentId: { type: "string", minLength: 1, maxLength: 100 }, subjectId: { $ref: "subject-id" } },
} as const;
