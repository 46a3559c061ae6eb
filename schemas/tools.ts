/** ToolConfigs: an agent's (or a role's) tool entries, unique by identity. */
export const toolsSchema = {
  $id: "tools",
  title: "ToolConfigs",
  type: "array",
  maxItems: 100,
  items: { $ref: "tool" },
  /** An entry's identity: its type, plus a custom tool's name or an MCP toolset's server. */
  "x-unique-by": ["type", "name", "mcpServerName"],
} as const;
