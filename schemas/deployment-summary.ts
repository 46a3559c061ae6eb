/** DeploymentSummary: a list item. */
import { summaryProperties } from "./deployment.js";

export const deploymentSummarySchema = {
  $id: "deployment-summary",
  title: "DeploymentSummary",
  type: "object",
  required: ["deployment_id", "customer_id", "name", "runtime", "status", "model", "created_at"],
  additionalProperties: false,
  properties: summaryProperties,
} as const;
