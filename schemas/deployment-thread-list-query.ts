/** DeploymentThreadListQuery: the page of GET /v1/deployments/{deployment_id}/threads. */
export const deploymentThreadListQuerySchema = {
  $id: "deployment-thread-list-query",
  title: "DeploymentThreadListQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
    cursor: { type: "string", minLength: 1, maxLength: 200, description: "`next_cursor` of the previous page." },
  },
} as const;
