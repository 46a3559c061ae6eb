/** DeploymentDeleted: the answer of a delete. */
export const deploymentDeletedSchema = {
  $id: "deployment-deleted",
  title: "DeploymentDeleted",
  type: "object",
  required: ["deployment_id", "status"],
  additionalProperties: false,
  properties: { deployment_id: { type: "string" }, status: { const: "deleted" } },
} as const;
