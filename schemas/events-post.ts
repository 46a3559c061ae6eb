/** EventsPost */
export const eventsPostSchema = {
  $id: "events-post",
  title: "EventsPost",
  type: "object",
  required: ["events"],
  additionalProperties: false,
  properties: {
    events: { type: "array", minItems: 1, maxItems: 100, items: { $ref: "inbound-event" } },
    delivery: { enum: ["immediate", "when_idle"] },
  },
} as const;
