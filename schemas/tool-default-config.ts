/** ToolDefaultConfig */
export const toolDefaultConfigSchema = {
  $id: "tool-default-config",
  title: "ToolDefaultConfig",
  type: "object",
  additionalProperties: false,
  properties: { enabled: { type: "boolean" }, permissionPolicy: { $ref: "permission-policy" } },
} as const;
