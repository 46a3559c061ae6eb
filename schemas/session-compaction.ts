/** SessionCompaction: the answer to a manual compaction request, done by a worker (`session.compacted` follows). */
export const sessionCompactionSchema = {
  $id: "session-compaction",
  title: "SessionCompaction",
  type: "object",
  required: ["object", "sessionId", "status"],
  additionalProperties: false,
  properties: {
    object: { const: "session.compaction" },
    sessionId: { type: "string" },
    status: { const: "requested" },
  },
} as const;
