/** AgentRateLimitsPatch: At least one field; an omitted field keeps its value. Publishes no new version. */
export const agentRateLimitsPatchSchema = {
  $id: "agent-rate-limits-patch",
  title: "AgentRateLimitsPatch",
  description: "At least one field; an omitted field keeps its value. Publishes no new version.",
  allOf: [{ $ref: "rate-limits" }],
  type: "object",
  minProperties: 1,
} as const;
