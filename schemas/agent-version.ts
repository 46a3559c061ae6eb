/** AgentVersion: an immutable version of an agent's configuration; skills are names only. */
export const agentVersionSchema = {
  $id: "agent-version",
  title: "AgentVersion",
  type: "object",
  required: ["id", "version", "name", "modelName", "systemPrompt", "skills", "tools", "roles", "mcpServers", "callableAgents", "metadata", "createdAt"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    version: { type: "integer", minimum: 1 },
    name: { type: "string" },
    modelName: { type: "string" },
    systemPrompt: { type: "string" },
    skills: { type: "array", items: { type: "string" } },
    tools: { $ref: "tools" },
    roles: { type: "array", items: { $ref: "role" } },
    mcpServers: { type: "array", items: { $ref: "mcp-server" } },
    callableAgents: { type: "array", items: { $ref: "callable-agent" } },
    metadata: { $ref: "metadata" },
    createdAt: { $ref: "timestamp" },
  },
} as const;
