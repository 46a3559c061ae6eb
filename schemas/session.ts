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
    parent: {
      type: "object",
      description:
        "On a child thread (a delegation of a callable agent): the session that delegated to it, the call the thread answers, and how deep it nests (1 below a top-level session).",
      required: ["sessionId", "toolUseId", "depth"],
      additionalProperties: false,
      properties: { sessionId: { type: "string" }, toolUseId: { type: "string" }, depth: { type: "integer", minimum: 1 } },
    },
    budget: {
      type: "object",
      additionalProperties: false,
      required: ["limitUsd", "spentUsd"],
      properties: { limitUsd: { type: ["number", "null"] }, spentUsd: { type: "number", minimum: 0 } },
    },
    forkedFrom: {
      type: "object",
      description: "On a fork: the session it was forked from, and the last sequence of that session's history it copied.",
      additionalProperties: false,
      required: ["sessionId", "sequence"],
      properties: { sessionId: { type: "string" }, sequence: { type: "integer", minimum: 0 } },
    },
  },
} as const;
