/** WebhookEndpoint: an organization's webhook endpoint. `secret` is answered once, at creation and on rotation. */
export const webhookEndpointSchema = {
  $id: "webhook-endpoint",
  title: "WebhookEndpoint",
  type: "object",
  required: ["id", "type", "url", "description", "eventTypes", "enabled", "createdAt", "updatedAt"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    type: { const: "webhook_endpoint" },
    url: { type: "string" },
    description: { type: ["string", "null"] },
    eventTypes: { type: ["array", "null"], items: { $ref: "webhook-event-type" }, description: "null: every event type." },
    enabled: { type: "boolean" },
    secret: { type: "string", pattern: "^whsec_", description: "The Standard Webhooks signing secret: only in the answer of the creation or a rotation." },
    createdAt: { $ref: "timestamp" },
    updatedAt: { $ref: "timestamp" },
  },
} as const;
