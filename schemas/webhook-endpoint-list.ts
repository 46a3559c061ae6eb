/** WebhookEndpointList: a page of the organization's webhook endpoints, newest first. */
export const webhookEndpointListSchema = {
  $id: "webhook-endpoint-list",
  title: "WebhookEndpointList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "webhook-endpoint" } }, pagination: { $ref: "offset-pagination" } },
} as const;
