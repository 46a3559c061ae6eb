/** WebhookDeliveryList: a page of a webhook endpoint's deliveries, newest first. */
export const webhookDeliveryListSchema = {
  $id: "webhook-delivery-list",
  title: "WebhookDeliveryList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "webhook-delivery" } }, pagination: { $ref: "offset-pagination" } },
} as const;
