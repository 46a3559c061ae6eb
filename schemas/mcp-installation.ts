/**
 * McpInstallation: what an installation did. `version` is the version it published; `agent` is the
 * agent as it stood once the installation was complete (normally holding that version, and the
 * `updatedAt` a vault PUT sends back). A retry with the same key answers the same body.
 */
export const mcpInstallationSchema = {
  $id: "mcp-installation",
  title: "McpInstallation",
  type: "object",
  required: ["object", "agentId", "version", "mcpServer", "authentication", "agent"],
  additionalProperties: false,
  properties: {
    object: { const: "agent.mcp_installation" },
    agentId: { type: "string" },
    version: { type: "integer", description: "The agent version this installation published." },
    mcpServer: { $ref: "mcp-server" },
    authentication: {
      type: "object",
      required: ["type", "vaultId", "credentialId"],
      additionalProperties: false,
      properties: {
        type: { enum: ["none", "existing_vault", "static_bearer"] },
        vaultId: { description: "The vault serving the server (attached to the agent); null for none.", anyOf: [{ type: "string" }, { type: "null" }] },
        credentialId: { description: "The credential the server is matched to; null for none.", anyOf: [{ type: "string" }, { type: "null" }] },
      },
    },
    agent: { $ref: "agent" },
  },
} as const;
