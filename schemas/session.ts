/** Session: a durable conversation with one agent version, for one subject. */
export const sessionSchema = {
  $id: "session",
  title: "Session",
  type: "object",
  required: ["id", "agentId", "agentVersion", "subjectId", "status", "role", "title", "yoloMode", "metadata", "budget", "createdAt", "updatedAt"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    agentId: { type: "string" },
    agentVersion: { type: "integer", minimum: 1 },
    subjectId: { type: "string" },
    status: { enum: ["idle", "running", "waiting_on_human", "archived"] },
    role: { type: ["string", "null"] },
    title: { type: ["string", "null"] },
    yoloMode: { type: "boolean" },
    metadata: { $ref: "metadata" },
    createdAt: { $ref: "timestamp" },
    updatedAt: { $ref: "timestamp" },
    usage: { $ref: "usage" },
    budget: {
      type: "object",
      additionalProperties: false,
      required: ["limitUsd", "spentUsd"],
      properties: { limitUsd: { type: ["number", "null"] }, spentUsd: { type: "number", minimum: 0 } },
    },
  },
} as const;
