/** McpServer */
export const mcpServerSchema = {
  $id: "mcp-server",
  title: "McpServer",
  type: "object",
  required: ["type", "name", "url"],
  additionalProperties: false,
  properties: {
    type: { const: "url" },
    name: { type: "string", pattern: "^[A-Za-z0-9_-]{1,100}$" },
    url: { type: "string", format: "uri", pattern: "^https?://", maxLength: 2048 },
  },
} as const;
