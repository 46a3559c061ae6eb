/** DeploymentWebhook: a deployment's filesystem webhook; `secret` (Standard Webhooks, `whsec_…`) only in the answer of the PUT that made it. */
export const deploymentWebhookSchema = {
  $id: "deployment-webhook",
  title: "DeploymentWebhook",
  type: "object",
  required: ["deployment_id", "url", "created_at", "updated_at"],
  additionalProperties: false,
  properties: {
    deployment_id: { type: "string" },
    url: { type: "string" },
    secret: { type: "string", description: "The signing secret; shown once. A later PUT replaces it." },
    created_at: { type: "string", format: "date-time" },
    updated_at: { type: "string", format: "date-time" },
  },
} as const;
