/** UserMessage: A user's prompt: text blocks, with optional turn metadata and attachments; starts a turn. */
export const userMessageSchema = {
  $id: "user-message",
  title: "UserMessage",
  type: "object",
  required: ["type", "content"],
  additionalProperties: false,
  properties: {
    type: { const: "user.message" },
    content: { $ref: "text-content" },
    metadata: { $ref: "metadata" },
    attachments: { type: "array", maxItems: 10, items: { $ref: "attachment" } },
  },
} as const;
