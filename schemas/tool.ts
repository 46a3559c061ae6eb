/** ToolConfig */
export const toolSchema = {
  $id: "tool",
  title: "ToolConfig",
  type: "object",
  required: ["type"],
  properties: { type: { type: "string" } },
  discriminator: { propertyName: "type" },
  oneOf: [{ $ref: "tool-agent-toolset" }, { $ref: "tool-mcp-toolset" }, { $ref: "tool-custom-tool" }],
} as const;
