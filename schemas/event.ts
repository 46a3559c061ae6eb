/**
 * Event: an envelope of the session log. `sequence` is null only on live-only SSE frames (message
 * deltas, provisional tool calls, `session.tool_updated`), which never appear in history.
 */
export const eventSchema = {
  $id: "event",
  title: "Event",
  type: "object",
  required: ["id", "type", "sessionId", "sequence", "turnId", "status", "payload", "processedAt", "createdAt"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    type: { type: "string" },
    sessionId: { type: "string" },
    sequence: { type: ["integer", "null"], minimum: 1 },
    turnId: { type: ["string", "null"] },
    status: { enum: ["received", "queued", "processed", "complete", "running", "streaming", null] },
    usage: { $ref: "usage" },
    payload: {
      type: "object",
      required: ["type"],
      properties: {
        type: { type: "string" },
        stop_reason: { $ref: "stop-reason", description: "On `session.status_idle`: why the turn ended." },
      },
    },
    processedAt: { anyOf: [{ $ref: "timestamp" }, { type: "null" }] },
    createdAt: { $ref: "timestamp" },
  },
} as const;
