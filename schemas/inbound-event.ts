/** InboundEvent: one event a client sends, by its `type`. */
export const inboundEventSchema = {
  $id: "inbound-event",
  title: "InboundEvent",
  type: "object",
  required: ["type"],
  properties: { type: { type: "string" } },
  discriminator: { propertyName: "type" },
  oneOf: [
    { $ref: "user-message" },
    { $ref: "user-steer" },
    { $ref: "user-interrupt" },
    { $ref: "user-approval-response" },
    { $ref: "user-custom-tool-result" },
    { $ref: "user-clarify-result" },
  ],
} as const;
