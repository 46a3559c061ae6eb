/** EventList: durable events in sequence order; `pagination.after` is the sequence to continue after, while `hasMore`. */
export const eventListSchema = {
  $id: "event-list",
  title: "EventList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: {
    object: { const: "list" },
    data: { type: "array", items: { $ref: "event" } },
    pagination: {
      type: "object",
      required: ["after", "hasMore", "limit"],
      additionalProperties: false,
      properties: {
        after: { type: "integer", minimum: 0 },
        hasMore: { type: "boolean", description: "More events follow. A page stops before 8 MiB of events, so it may hold fewer than `limit`." },
        limit: { type: "integer" },
      },
    },
  },
} as const;
