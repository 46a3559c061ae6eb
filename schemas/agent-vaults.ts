/**
 * AgentVaults: the vaults attached to an agent, the agent's `updatedAt` (the token a PUT sends back),
 * and how each MCP server of the agent's latest version would connect with them.
 */
export const agentVaultsSchema = {
  $id: "agent-vaults",
  title: "AgentVaults",
  type: "object",
  required: ["object", "agentId", "updatedAt", "vaults", "mcpServers"],
  additionalProperties: false,
  properties: {
    object: { const: "agent.vaults" },
    agentId: { type: "string" },
    updatedAt: { $ref: "timestamp" },
    vaults: { type: "array", items: { $ref: "vault" } },
    mcpServers: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "url", "status", "credentialId"],
        additionalProperties: false,
        properties: {
          name: { type: "string" },
          url: { type: "string" },
          status: { enum: ["public", "connected", "reconnect", "conflict", "unavailable"] },
          credentialId: { description: "The credential a request would send: set when exactly one matches.", anyOf: [{ type: "string" }, { type: "null" }] },
        },
      },
    },
  },
} as const;
