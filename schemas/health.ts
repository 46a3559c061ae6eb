/** Health: liveness (`status: ok`) and readiness (with the check of each backing service). */
export const healthSchema = {
  $id: "health",
  title: "Health",
  type: "object",
  required: ["status"],
  additionalProperties: false,
  properties: {
    status: { enum: ["ok", "unavailable"] },
    checks: {
      type: "object",
      required: ["mongodb", "redis"],
      additionalProperties: false,
      properties: { mongodb: { enum: ["ok", "unavailable"] }, redis: { enum: ["ok", "unavailable"] } },
    },
  },
} as const;
