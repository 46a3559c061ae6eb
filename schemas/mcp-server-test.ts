/**
 * McpServerTest: what testing an MCP server of an agent found. Answered only when the server was
 * reached and listed its tools; a server that cannot be used is `502` with the reason.
 */
export const mcpServerTestSchema = {
  $id: "mcp-server-test",
  title: "McpServerTest",
  type: "object",
  required: ["object", "agentId", "agentVersion", "serverName", "url", "status", "credentialId", "transport", "tools", "testedAt"],
  additionalProperties: false,
  properties: {
    object: { const: "agent.mcp_server_test" },
    agentId: { type: "string" },
    agentVersion: { type: "integer", description: "The latest version, whose server was tested." },
    serverName: { type: "string" },
    url: { type: "string" },
    status: {
      enum: ["public", "connected"],
      description: "`connected` when a credential of the agent's vaults was sent, `public` when none matches the server.",
    },
    credentialId: { anyOf: [{ type: "string" }, { type: "null" }], description: "The credential sent, if any." },
    transport: {
      enum: ["streamable_http", "sse"],
      description: "The transport the server answered on (the legacy SSE transport when it refused Streamable HTTP).",
    },
    tools: {
      type: "array",
      description: "Every tool the server lists, whether or not the agent's toolset enables it.",
      items: {
        type: "object",
        required: ["name", "description"],
        additionalProperties: false,
        properties: { name: { type: "string" }, description: { type: "string" } },
      },
    },
    testedAt: { $ref: "timestamp" },
  },
} as const;
