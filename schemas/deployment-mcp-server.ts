/** DeploymentMcpServer: an MCP server of a deployment, with an optional allowlist of its tools. */
export const deploymentMcpServerSchema = {
  $id: "deployment-mcp-server",
  title: "DeploymentMcpServer",
  type: "object",
  required: ["name", "url"],
  additionalProperties: false,
  properties: {
    name: { type: "string", pattern: "^[A-Za-z0-9_-]{1,100}$" },
    url: { type: "string", format: "uri", pattern: "^https?://", maxLength: 2048 },
    tools: { type: "array", maxItems: 200, uniqueItems: true, items: { type: "string", minLength: 1, maxLength: 128 } },
  },
} as const;
