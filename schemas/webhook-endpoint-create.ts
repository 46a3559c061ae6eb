/** WebhookEndpointCreate: the body of POST /v1/webhooks. */
import { WEBHOOK_EVENT_TYPES } from "./webhook-event-type.js";

export const webhookEndpointCreateSchema = {
  $id: "webhook-endpoint-create",
  title: "WebhookEndpointCreate",
  description: "`eventTypes` absent or null: every event type. `enabled` defaults to true.",
  type: "object",
  required: ["url"],
  additionalProperties: false,
  properties: {
    url: {
      type: "string",
      format: "uri",
      pattern: "^https?://",
      maxLength: 2048,
      description: "Where signed deliveries are POSTed (through the service's outbound guard).",
    },
    description: { type: ["string", "null"], maxLength: 500 },
    eventTypes: { type: ["array", "null"], items: { $ref: "webhook-event-type" }, minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true },
    enabled: { type: "boolean" },
  },
} as const;
