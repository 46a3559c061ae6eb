/** McpToolset: The tools of one configured MCP server. */
export const toolMcpToolsetSchema = {
  $id: "tool-mcp-toolset",
  title: "McpToolset",
  description: "The tools of one configured MCP server.",
  type: "object",
  required: ["type", "mcpServerName"],
  additionalProperties: false,
  properties: {
    type: { const: "mcp_toolset" },
    mcpServerName: { type: "string", minLength: 1, maxLength: 100 },
    defaultConfig: { $ref: "tool-default-config" },
    configs: {
      type: "array",
      "x-unique-by": ["name"],
      maxItems: 200,
      items: {
        type: "object",
        required: ["name"],
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 1, maxLength: 128 },
          enabled: { type: "boolean" },
          permissionPolicy: { $ref: "permission-policy" },
        },
      },
    },
    resources: { type: "boolean" },
    prompts: { type: "boolean" },
  },
} as const;
