/** Automation: an agent prompt on a schedule for one subject, with its state, next run time and run counters. */
export const automationSchema = {
  $id: "automation",
  title: "Automation",
  type: "object",
  required: [
    "id", "type", "agentId", "subjectId", "name", "prompt", "schedule", "timezone", "scheduleDisplay", "skills", "repeat", "enabled", "state",
    "nextRunAt", "runCount", "failedRunCount", "completedOccurrences", "lastRun", "createdAt", "updatedAt",
  ],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    type: { const: "automation" },
    agentId: { type: "string" },
    subjectId: { type: "string" },
    name: { type: ["string", "null"] },
    prompt: { type: "string" },
    schedule: { type: "string", description: "Normalized: a UTC timestamp (one-time schedules, durations resolved), every <duration>, or the cron expression." },
    timezone: { type: "string", description: "The zone a cron expression is read in; UTC for the other forms." },
    scheduleDisplay: { type: "string" },
    skills: { type: "array", items: { type: "string" } },
    repeat: { type: ["integer", "null"] },
    enabled: { type: "boolean" },
    state: { enum: ["active", "paused", "disabled", "completed"] },
    nextRunAt: { anyOf: [{ $ref: "timestamp" }, { type: "null" }] },
    runCount: { type: "integer", minimum: 0, description: "Runs, scheduled and manual, succeeded or failed." },
    failedRunCount: { type: "integer", minimum: 0 },
    completedOccurrences: { type: "integer", minimum: 0, description: "Scheduled occurrences whose session was created and prompted: what repeat counts." },
    lastRun: {
      anyOf: [
        {
          type: "object",
          required: ["id", "at", "status", "sessionId", "error"],
          additionalProperties: false,
          properties: { id: { type: "string" }, at: { $ref: "timestamp" }, status: { enum: ["pending", "succeeded", "failed"] }, sessionId: { type: ["string", "null"] }, error: { type: ["string", "null"] } },
        },
        { type: "null" },
      ],
    },
    createdAt: { $ref: "timestamp" },
    updatedAt: { $ref: "timestamp" },
  },
} as const;
