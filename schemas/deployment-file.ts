/** DeploymentFile: a file uploaded into a deployment's workspace. */
export const deploymentFileSchema = {
  $id: "deployment-file",
  title: "DeploymentFile",
  type: "object",
  required: ["deployment_id", "path", "size"],
  additionalProperties: false,
  properties: { deployment_id: { type: "string" }, path: { type: "string" }, size: { type: "integer", minimum: 0 } },
} as const;
