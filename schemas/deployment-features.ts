/** DeploymentFeatures: the feature flags of a create body (defaults in src/deployments/domain/deployments.ts). */
export const deploymentFeaturesSchema = {
  $id: "deployment-features",
  title: "DeploymentFeatures",
  type: "object",
  additionalProperties: false,
  properties: {
    memory: { type: "boolean" },
    dreaming: { type: "boolean" },
    automations: { type: "boolean" },
    steering: { type: "boolean" },
    filesystem_webhooks: { type: "boolean" },
  },
} as const;
