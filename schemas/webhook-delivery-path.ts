/** WebhookDeliveryPath: the path parameters of one delivery of a webhook endpoint. */
export const webhookDeliveryPathSchema = {
  $id: "webhook-delivery-path",
  title: "WebhookDeliveryPath",
  type: "object",
  required: ["webhookId", "deliveryId"],
  additionalProperties: false,
  properties: { webhookId: { type: "string", minLength: 1, maxLength: 100 }, deliveryId: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
