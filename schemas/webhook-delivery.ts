/** WebhookDelivery: one message to a webhook endpoint, with where its attempts stand. */
export const webhookDeliverySchema = {
  $id: "webhook-delivery",
  title: "WebhookDelivery",
  type: "object",
  required: ["id", "type", "eventType", "status", "attempts", "lastStatus", "lastError", "nextAttemptAt", "createdAt", "deliveredAt", "payload"],
  additionalProperties: false,
  properties: {
    id: { type: "string", description: "The `webhook-id` header of every attempt." },
    type: { const: "webhook_delivery" },
    eventType: { $ref: "webhook-event-type" },
    status: { enum: ["pending", "delivered", "failed"] },
    attempts: { type: "integer", minimum: 0 },
    lastStatus: { type: ["integer", "null"], description: "The HTTP status of the last attempt that got an answer." },
    lastError: { type: ["string", "null"] },
    nextAttemptAt: { anyOf: [{ $ref: "timestamp" }, { type: "null" }], description: "When a pending delivery is next tried; null once it is not pending." },
    createdAt: { $ref: "timestamp" },
    deliveredAt: { anyOf: [{ $ref: "timestamp" }, { type: "null" }] },
    payload: { type: "object", description: "The body as sent (and signed)." },
  },
} as const;
