/** DeploymentWebhookDeleted: the answer of removing a deployment's filesystem webhook. */
export const deploymentWebhookDeletedSchema = {
  $id: "deployment-webhook-deleted",
  title: "DeploymentWebhookDeleted",
  type: "object",
  required: ["deployment_id", "webhook"],
  additionalProperties: false,
  properties: { deployment_id: { type: "string" }, webhook: { const: "deleted" } },
} as const;
