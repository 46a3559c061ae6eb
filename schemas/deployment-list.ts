/** DeploymentList: a page of deployments, newest first; `next_cursor` is null on the last page. */
export const deploymentListSchema = {
  $id: "deployment-list",
  title: "DeploymentList",
  type: "object",
  required: ["data", "next_cursor"],
  additionalProperties: false,
  properties: { data: { type: "array", items: { $ref: "deployment-summary" } }, next_cursor: { type: ["string", "null"] } },
} as const;
