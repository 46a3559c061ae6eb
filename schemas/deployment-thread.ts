/** DeploymentThread: a thread of a deployment (a session of its agent for its customer). */
export const deploymentThreadSchema = {
  $id: "deployment-thread",
  title: "DeploymentThread",
  type: "object",
  required: ["thread_id", "deployment_id", "title", "status", "created_at", "updated_at"],
  additionalProperties: false,
  properties: {
    thread_id: { type: "string" },
    deployment_id: { type: "string" },
    title: { type: ["string", "null"] },
    status: { enum: ["idle", "running", "waiting_on_human", "archived"] },
    metadata: { $ref: "metadata" },
    usage: { $ref: "usage" },
    created_at: { type: "string", format: "date-time" },
    updated_at: { type: "string", format: "date-time" },
  },
} as const;
