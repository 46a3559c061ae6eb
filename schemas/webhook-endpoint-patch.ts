/** WebhookEndpointPatch: any subset of the create fields; `eventTypes: null` takes every event type again. */
import { webhookEndpointCreateSchema } from "./webhook-endpoint-create.js";

export const webhookEndpointPatchSchema = {
  $id: "webhook-endpoint-patch",
  title: "WebhookEndpointPatch",
  type: "object",
  minProperties: 1,
  additionalProperties: false,
  properties: webhookEndpointCreateSchema.properties,
} as const;
