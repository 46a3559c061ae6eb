/** SessionFork: where a fork cuts the original's history, and the new session's title and metadata. */
export const sessionForkSchema = {
  $id: "session-fork",
  title: "SessionFork",
  description: "Every field is optional: the fork takes the whole durable history, the original's title and its metadata.",
  type: "object",
  additionalProperties: false,
  properties: {
    atSequence: {
      type: "integer",
      minimum: 1,
      description:
        "The last event of the original the fork keeps (default: its last durable event). It must be an idle point: no turn open, no message unanswered.",
    },
    title: { type: "string", minLength: 1, maxLength: 200 },
    metadata: { $ref: "metadata" },
  },
} as const;
