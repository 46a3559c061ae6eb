/** DeploymentThreadCreate: the body of POST /v1/deployments/{deployment_id}/threads. */
export const deploymentThreadCreateSchema = {
  $id: "deployment-thread-create",
  title: "DeploymentThreadCreate",
  type: "object",
  additionalProperties: false,
  properties: {
    title: { type: "string", minLength: 1, maxLength: 200 },
    metadata: { $ref: "metadata" },
  },
} as const;
