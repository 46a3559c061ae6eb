/** DeploymentThreadList: a page of a deployment's threads, newest first; `next_cursor` is null on the last page. */
export const deploymentThreadListSchema = {
  $id: "deployment-thread-list",
  title: "DeploymentThreadList",
  type: "object",
  required: ["data", "next_cursor"],
  additionalProperties: false,
  properties: { data: { type: "array", items: { $ref: "deployment-thread" } }, next_cursor: { type: ["string", "null"] } },
} as const;
