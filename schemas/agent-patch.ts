/** AgentPatch: Partial update: collections are upserted by identity; omitted configuration is kept. */
export const agentPatchSchema = {
  $id: "agent-patch",
  title: "AgentPatch",
  description: "Partial update: collections are upserted by identity; omitted configuration is kept.",
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    modelName: { $ref: "model-name" },
    systemPrompt: { type: "string", maxLength: 100000 },
    skills: { type: "array", maxItems: 100, items: { $ref: "skill" }, "x-unique-by": ["name"] },
    tools: { $ref: "tools" },
    roles: { type: "array", maxItems: 50, items: { $ref: "role" }, "x-unique-by": ["name"] },
    mcpServers: { type: "array", maxItems: 50, items: { $ref: "mcp-server" }, "x-unique-by": ["name"] },
    metadata: { $ref: "metadata" },
    expectedVersion: { type: "integer", minimum: 1 },
  },
} as const;
