/**
 * DeploymentPatch: the body of PATCH /v1/deployments/{deployment_id}. `customer_id` and `runtime` are
 * immutable: accepted only when equal to the deployment's (a client may send back what it read).
 */
import { ENV_NAME_PATTERN, mcpServersField, SECRET_REF_PATTERN, skillsField } from "./deployment-create.js";

const flag = { type: ["boolean", "null"] } as const;

export const deploymentPatchSchema = {
  $id: "deployment-patch",
  title: "DeploymentPatch",
  type: "object",
  additionalProperties: false,
  properties: {
    customer_id: { type: "string", maxLength: 200 },
    runtime: { type: "string", maxLength: 100 },
    name: { type: "string", minLength: 1, maxLength: 200 },
    model: { $ref: "model-name" },
    system_prompt: { type: "string", maxLength: 100000 },
    mcp_servers: mcpServersField,
    skills: skillsField,
    secrets: {
      type: "object",
      maxProperties: 100,
      description: "Merged per key; a key set to null is removed.",
      propertyNames: { pattern: ENV_NAME_PATTERN },
      additionalProperties: { type: ["string", "null"], pattern: SECRET_REF_PATTERN },
    },
    features: {
      type: "object",
      description: "Merged per key; a key set to null goes back to its default.",
      additionalProperties: false,
      properties: { memory: flag, dreaming: flag, automations: flag, steering: flag, filesystem_webhooks: flag },
    },
  },
} as const;
