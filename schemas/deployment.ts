/**
 * Deployment: a deployment as get and update answer it; the create form omits `name` and `created_at`
 * (`deployment-created`), and list items are summaries (`deployment-summary`).
 */
export const summaryProperties = {
  deployment_id: { type: "string" },
  customer_id: { type: "string" },
  name: { type: "string" },
  runtime: { type: "string" },
  status: { enum: ["provisioning", "ready", "error"] },
  model: { type: "string" },
  created_at: { type: "string", format: "date-time" },
} as const;

export const placedProperties = {
  deployment_id: summaryProperties.deployment_id,
  customer_id: summaryProperties.customer_id,
  runtime: summaryProperties.runtime,
  status: summaryProperties.status,
  model: summaryProperties.model,
  thread_id: { type: "string" },
  filesystem: {
    type: "object",
    required: ["workspace_path", "persistent"],
    additionalProperties: false,
    properties: { workspace_path: { type: "string" }, persistent: { type: "boolean" } },
  },
  events: {
    type: "object",
    required: ["transport", "url"],
    additionalProperties: false,
    properties: { transport: { const: "sse" }, url: { type: "string" } },
  },
} as const;

const full = {
  ...placedProperties,
  name: summaryProperties.name,
  created_at: summaryProperties.created_at,
  status_reason: { type: ["string", "null"], description: "Why the deployment is in `error`; null otherwise." },
} as const;

export const deploymentSchema = {
  $id: "deployment",
  title: "Deployment",
  type: "object",
  required: ["deployment_id", "customer_id", "name", "runtime", "status", "model", "thread_id", "filesystem", "events", "created_at", "status_reason"],
  additionalProperties: false,
  properties: full,
} as const;
