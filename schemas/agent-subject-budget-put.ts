/** AgentSubjectBudgetPut: the agent's spend limit per subject. Publishes no new version. */
export const agentSubjectBudgetPutSchema = {
  $id: "agent-subject-budget-put",
  title: "AgentSubjectBudgetPut",
  description:
    "Spend limit in US dollars for each subject across all of its sessions with this agent; null for none. A turn that reaches it ends with stop_reason budget_exceeded (scope subject). Publishes no new version.",
  type: "object",
  additionalProperties: false,
  required: ["limitUsd"],
  properties: { limitUsd: { type: ["number", "null"], exclusiveMinimum: 0, maximum: 1_000_000 } },
} as const;
