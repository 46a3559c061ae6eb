/** SandboxWarmResult: the answer to a prewarm hint. */
export const sandboxWarmResultSchema = {
  $id: "sandbox-warm-result",
  title: "SandboxWarmResult",
  type: "object",
  required: ["object", "status", "reason", "agentId", "subjectId"],
  additionalProperties: false,
  properties: {
    object: { const: "sandbox.warm" },
    status: { const: "warming" },
    reason: { type: ["string", "null"] },
    agentId: { type: "string" },
    subjectId: { type: "string" },
  },
} as const;
