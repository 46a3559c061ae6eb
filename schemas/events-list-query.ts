/** EventsListQuery */
export const eventsListQuerySchema = {
  $id: "events-list-query",
  title: "EventsListQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    after: { type: "integer", minimum: 0, maximum: 9007199254740991 },
    limit: { type: "integer", minimum: 1, maximum: 100, default: 100 },
  },
} as const;
