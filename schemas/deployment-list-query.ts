/** DeploymentListQuery: filters and the page of GET /v1/deployments. */
export const deploymentListQuerySchema = {
  $id: "deployment-list-query",
  title: "DeploymentListQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    customer_id: { type: "string", minLength: 1, maxLength: 200 },
    status: { enum: ["provisioning", "ready", "error"] },
    limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
    cursor: { type: "string", minLength: 1, maxLength: 200, description: "`next_cursor` of the previous page, with the same filters." },
  },
} as const;
