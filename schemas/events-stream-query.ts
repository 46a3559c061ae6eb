/** EventsStreamQuery */
export const eventsStreamQuerySchema = {
  $id: "events-stream-query",
  title: "EventsStreamQuery",
  type: "object",
  additionalProperties: false,
  properties: { after: { type: "integer", minimum: 0, maximum: 9007199254740991 } },
} as const;
