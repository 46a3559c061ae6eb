/** EventsAccepted: the events a send persisted, as they now stand. */
export const eventsAcceptedSchema = {
  $id: "events-accepted",
  title: "EventsAccepted",
  type: "object",
  required: ["object", "data"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "event" } } },
} as const;
