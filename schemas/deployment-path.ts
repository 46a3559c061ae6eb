/** DeploymentPath: `{deployment_id}`. */
export const deploymentPathSchema = {
  $id: "deployment-path",
  title: "DeploymentPath",
  type: "object",
  required: ["deployment_id"],
  additionalProperties: false,
  properties: { deployment_id: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
