/** SubjectSpend: what one subject has spent across its sessions with an agent, beside the agent's limit. */
export const subjectSpendSchema = {
  $id: "subject-spend",
  title: "SubjectSpend",
  description: "What one subject has spent across its sessions with an agent (their usage cost_usd), beside the agent's per-subject limit.",
  type: "object",
  required: ["agentId", "subjectId", "spentUsd", "limitUsd"],
  additionalProperties: false,
  properties: {
    agentId: { type: "string" },
    subjectId: { type: "string" },
    spentUsd: { type: "number", minimum: 0 },
    limitUsd: { type: ["number", "null"] },
  },
} as const;
