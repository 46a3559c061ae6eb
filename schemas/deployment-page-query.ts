/** DeploymentPageQuery: a page of a list of the deployments interface (threads, webhook deliveries, secrets). */
export const deploymentPageQuerySchema = {
  $id: "deployment-page-query",
  title: "DeploymentPageQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
    cursor: { type: "string", minLength: 1, maxLength: 200, description: "`next_cursor` of the previous page." },
  },
} as const;
