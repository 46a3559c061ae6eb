/** CustomTool: A tool executed by the caller's application. */
export const toolCustomToolSchema = {
  $id: "tool-custom-tool",
  title: "CustomTool",
  description: "A tool executed by the caller's application.",
  type: "object",
  required: ["type", "name", "description", "input_schema"],
  additionalProperties: false,
  properties: {
    type: { const: "custom_tool" },
    name: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
    description: { type: "string", minLength: 1, maxLength: 10000 },
    input_schema: {
      type: "object",
      required: ["type"],
      maxProperties: 20,
      properties: {
        type: { const: "object" },
        properties: { type: "object", maxProperties: 100 },
        required: { type: "array", maxItems: 100, items: { type: "string", maxLength: 128 } },
      },
    },
    enabled: { type: "boolean" },
    permissionPolicy: { $ref: "permission-policy" },
  },
} as const;
