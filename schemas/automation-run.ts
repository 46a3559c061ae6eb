/** AutomationRun: one occurrence of an automation, scheduled or triggered by hand, and the session it created. */
export const automationRunSchema = {
  $id: "automation-run",
  title: "AutomationRun",
  type: "object",
  required: ["id", "type", "automationId", "trigger", "scheduledFor", "status", "sessionId", "error", "createdAt", "finishedAt"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    type: { const: "automation_run" },
    automationId: { type: "string" },
    trigger: { enum: ["schedule", "manual"] },
    scheduledFor: { anyOf: [{ $ref: "timestamp" }, { type: "null" }] },
    status: { enum: ["pending", "succeeded", "failed"] },
    sessionId: { type: ["string", "null"], description: "The run's fresh session; null when the run failed before creating it." },
    error: { type: ["string", "null"], description: "Why the run failed." },
    createdAt: { $ref: "timestamp" },
    finishedAt: { anyOf: [{ $ref: "timestamp" }, { type: "null" }] },
  },
} as const;
