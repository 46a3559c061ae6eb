/** DeploymentAutomationPath: `{deployment_id}` and `{automation_id}`. */
export const deploymentAutomationPathSchema = {
  $id: "deployment-automation-path",
  title: "DeploymentAutomationPath",
  type: "object",
  required: ["deployment_id", "automation_id"],
  additionalProperties: false,
  properties: { deployment_id: { type: "string", minLength: 1, maxLength: 100 }, automation_id: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
