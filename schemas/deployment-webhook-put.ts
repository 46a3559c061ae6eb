/** DeploymentWebhookPut: the body of PUT /v1/deployments/{deployment_id}/webhook. */
export const deploymentWebhookPutSchema = {
  $id: "deployment-webhook-put",
  title: "DeploymentWebhookPut",
  type: "object",
  required: ["url"],
  additionalProperties: false,
  properties: {
    url: { type: "string", format: "uri", pattern: "^https?://", maxLength: 2048, description: "Where signed `filesystem.changed` deliveries are POSTed." },
  },
} as const;
