/** WebhookEndpointPath: the path parameters of a webhook endpoint's routes. */
export const webhookEndpointPathSchema = {
  $id: "webhook-endpoint-path",
  title: "WebhookEndpointPath",
  type: "object",
  required: ["webhookId"],
  additionalProperties: false,
  properties: { webhookId: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
