/** DeploymentDeleteQuery: DELETE /v1/deployments/{deployment_id}. */
export const deploymentDeleteQuerySchema = {
  $id: "deployment-delete-query",
  title: "DeploymentDeleteQuery",
  type: "object",
  additionalProperties: false,
  properties: { retain_filesystem: { type: "boolean", default: false, description: "Keep a snapshot of the workspace for 30 days." } },
} as const;
