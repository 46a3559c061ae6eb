/** RateLimits */
export const rateLimitsSchema = {
  $id: "rate-limits",
  title: "RateLimits",
  type: "object",
  additionalProperties: false,
  properties: {
    conversationsPerMinute: { type: "integer", minimum: 1, maximum: 300 },
    messagesPerMinute: { type: "integer", minimum: 1, maximum: 1000 },
  },
} as const;
