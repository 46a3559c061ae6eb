/** AgentPath: the path parameters of an agent's routes. */
export const agentPathSchema = {
  $id: "agent-path",
  title: "AgentPath",
  type: "object",
  required: ["agentId"],
  additionalProperties: false,
  properties: { agentId: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
