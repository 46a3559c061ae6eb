/** DeploymentSandbox: the sandbox of a create body. */
export const deploymentSandboxSchema = {
  $id: "deployment-sandbox",
  title: "DeploymentSandbox",
  type: "object",
  additionalProperties: false,
  properties: {
    enabled: { type: "boolean" },
    type: { enum: ["docker", "local"], description: "`docker` runs on the local backend when no Docker engine answers (see the decisions)." },
    persistent_filesystem: { type: "boolean" },
  },
} as const;
