/**
 * Event: an envelope of the session log, its `payload` typed by its `type` (`event-payload`). `sequence` is null only on live-only SSE frames (message
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
    payload: { $ref: "event-payload" },
    processedAt: { anyOf: [{ $ref: "timestamp" }, { type: "null" }] },
    createdAt: { $ref: "timestamp" },
  },
} as const;
