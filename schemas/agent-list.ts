/** AgentList: a page of agents, newest first. */
export const agentListSchema = {
  $id: "agent-list",
  title: "AgentList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "agent" } }, pagination: { $ref: "offset-pagination" } },
} as const;
