/** DeploymentThreadPath: `{deployment_id}` and `{thread_id}`. */
export const deploymentThreadPathSchema = {
  $id: "deployment-thread-path",
  title: "DeploymentThreadPath",
  type: "object",
  required: ["deployment_id", "thread_id"],
  additionalProperties: false,
  properties: { deployment_id: { type: "string", minLength: 1, maxLength: 100 }, thread_id: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
