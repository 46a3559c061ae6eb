/** Usage: a turn's usage (on its terminal event) or a session's aggregate. */
export const usageSchema = {
  $id: "usage",
  title: "Usage",
  type: "object",
  required: [
    "model", "input", "output", "cache_read", "cache_write", "reasoning", "total", "calls",
    "context_used", "context_max", "context_percent", "cost_status", "last_turn_latency_ms", "latency_ms",
  ],
  additionalProperties: false,
  properties: {
    model: { type: "string" },
    input: { type: "integer", minimum: 0 },
    output: { type: "integer", minimum: 0 },
    cache_read: { type: "integer", minimum: 0 },
    cache_write: { type: "integer", minimum: 0 },
    reasoning: { type: "integer", minimum: 0 },
    total: { type: "integer", minimum: 0 },
    calls: { type: "integer", minimum: 0 },
    context_used: { type: "integer", minimum: 0 },
    context_max: { type: "integer", minimum: 0 },
    context_percent: { type: "integer", minimum: 0, maximum: 100 },
    cost_usd: { type: "number", minimum: 0 },
    cost_status: { enum: ["estimated", "included", "unknown"] },
    last_turn_latency_ms: { type: "integer", minimum: 0 },
    latency_ms: { type: "integer", minimum: 0 },
  },
} as const;
