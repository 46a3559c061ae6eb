/** Error: every error response. `rateLimit` is present on a 429 of an exhausted allowance. */
export const errorSchema = {
  $id: "error",
  title: "Error",
  type: "object",
  required: ["error", "message"],
  additionalProperties: false,
  properties: {
    error: {
      enum: [
        "validation_error",
        "unauthorized",
        "forbidden",
        "not_found",
        "method_not_allowed",
        "conflict",
        "idempotency_error",
        "invalid_state",
        "no_active_turn",
        "rate_limited",
        "server_error",
        "runtime_delete_failed",
        "insufficient_credits",
        "budget_exceeded",
        "invalid_skill",
        "invalid_secret_ref",
      ],
    },
    message: { type: "string" },
    /** The request's id, as in its `X-Request-Id` response header (absent when the HTTP request itself could not be read). */
    requestId: { type: "string", minLength: 1, maxLength: 100 },
    rateLimit: {
      type: "object",
      required: ["resource", "limit", "remaining", "periodSeconds", "resetAfterSeconds"],
      additionalProperties: false,
      properties: {
        resource: { enum: ["conversations", "messages"] },
        limit: { type: "integer", minimum: 1 },
        remaining: { type: "integer", minimum: 0 },
        periodSeconds: { const: 60 },
        resetAfterSeconds: { type: "integer", minimum: 1, maximum: 60 },
      },
    },
  },
} as const;
