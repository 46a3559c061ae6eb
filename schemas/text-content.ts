/** TextContent */
export const textContentSchema = {
  $id: "text-content",
  title: "TextContent",
  type: "array",
  minItems: 1,
  maxItems: 100,
  items: { $ref: "text-block" },
} as const;
