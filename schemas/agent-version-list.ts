/** AgentVersionList: a page of agent versions, newest first. */
export const agentVersionListSchema = {
  $id: "agent-version-list",
  title: "AgentVersionList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "agent-version" } }, pagination: { $ref: "offset-pagination" } },
} as const;
