/** Agent: an agent with its latest version; `tools` is that version's tool configuration. */
export const agentSchema = {
  $id: "agent",
  title: "Agent",
  type: "object",
  required: ["id", "name", "status", "metadata", "createdAt", "updatedAt", "rateLimits", "subjectBudget", "version", "tools"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    status: { enum: ["active", "archived"] },
    metadata: { $ref: "metadata" },
    createdAt: { $ref: "timestamp" },
    updatedAt: { $ref: "timestamp" },
    rateLimits: {
      type: "object",
      required: ["conversationsPerMinute", "messagesPerMinute"],
      additionalProperties: false,
      properties: { conversationsPerMinute: { type: "integer" }, messagesPerMinute: { type: "integer" } },
    },
    subjectBudget: {
      type: "object",
      description: "Spend limit in US dollars per subject across its sessions with this agent (PUT /v1/agents/{agentId}/subject-budget); null for none.",
      required: ["limitUsd"],
      additionalProperties: false,
      properties: { limitUsd: { type: ["number", "null"] } },
    },
    version: { $ref: "agent-version" },
    tools: { $ref: "tools" },
  },
} as const;
