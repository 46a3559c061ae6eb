/** DeploymentWebhookDeliveryList: a page of a deployment's webhook deliveries, newest first. */
export const deploymentWebhookDeliveryListSchema = {
  $id: "deployment-webhook-delivery-list",
  title: "DeploymentWebhookDeliveryList",
  type: "object",
  required: ["data", "next_cursor"],
  additionalProperties: false,
  properties: {
    data: {
      type: "array",
      items: {
        type: "object",
        required: ["delivery_id", "type", "status", "attempts", "last_status", "last_error", "created_at", "delivered_at"],
        additionalProperties: false,
        properties: {
          delivery_id: { type: "string", description: "The `webhook-id` header of every attempt." },
          type: { type: "string" },
          status: { enum: ["pending", "delivered", "failed"] },
          attempts: { type: "integer", minimum: 0 },
          last_status: { type: ["integer", "null"] },
          last_error: { type: ["string", "null"] },
          created_at: { type: "string", format: "date-time" },
          delivered_at: { type: ["string", "null"], format: "date-time" },
        },
      },
    },
    next_cursor: { type: ["string", "null"] },
  },
} as const;
