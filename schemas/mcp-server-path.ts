/** McpServerPath: the path parameters of an agent's MCP server routes. */
export const mcpServerPathSchema = {
  $id: "mcp-server-path",
  title: "McpServerPath",
  type: "object",
  required: ["agentId", "serverName"],
  additionalProperties: false,
  properties: {
    agentId: { type: "string", minLength: 1, maxLength: 100 },
    serverName: {
      type: "string",
      minLength: 1,
      maxLength: 100,
      pattern: "^[A-Za-z0-9_-]{1,100}$",
      description: "The `name` of an MCP server of the agent's latest version.",
    },
  },
} as const;
