/** DeploymentCreated: the create form of a deployment (no `name`, no `created_at`). */
import { placedProperties } from "./deployment.js";

export const deploymentCreatedSchema = {
  $id: "deployment-created",
  title: "DeploymentCreated",
  type: "object",
  required: ["deployment_id", "customer_id", "runtime", "status", "model", "thread_id", "filesystem", "events"],
  additionalProperties: false,
  properties: placedProperties,
} as const;
