/** AgentCreate: Create body, also the full-replace body of POST /v1/agents/{agentId}. */
export const agentCreateSchema = {
  $id: "agent-create",
  title: "AgentCreate",
  description: "Create body, also the full-replace body of POST /v1/agents/{agentId}.",
  type: "object",
  required: ["name", "modelName", "systemPrompt", "skills", "tools"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    modelName: { $ref: "model-name" },
    systemPrompt: { type: "string", maxLength: 100000 },
    skills: { type: "array", maxItems: 100, items: { $ref: "skill" }, "x-unique-by": ["name"] },
    tools: { $ref: "tools" },
    roles: { type: "array", maxItems: 50, items: { $ref: "role" }, "x-unique-by": ["name"] },
    mcpServers: { type: "array", maxItems: 50, items: { $ref: "mcp-server" }, "x-unique-by": ["name"] },
    callableAgents: { type: "array", maxItems: 20, items: { $ref: "callable-agent" }, "x-unique-by": ["agentId"] },
    rateLimits: { $ref: "rate-limits" },
    metadata: { $ref: "metadata" },
  },
} as const;
