/** TextBlock */
export const textBlockSchema = {
  $id: "text-block",
  title: "TextBlock",
  type: "object",
  required: ["type", "text"],
  additionalProperties: false,
  properties: { type: { const: "text" }, text: { type: "string", minLength: 1, maxLength: 20000 } },
} as const;
