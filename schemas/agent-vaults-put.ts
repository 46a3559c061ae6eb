/** AgentVaultsPut: the whole set of vaults attached to an agent, with the agent's `updatedAt` as read. */
export const agentVaultsPutSchema = {
  $id: "agent-vaults-put",
  title: "AgentVaultsPut",
  description: "Replaces the whole set; an empty `vaultIds` detaches all. A stale `expectedUpdatedAt` is 409 conflict.",
  type: "object",
  required: ["vaultIds", "expectedUpdatedAt"],
  additionalProperties: false,
  properties: {
    vaultIds: { type: "array", maxItems: 20, uniqueItems: true, items: { type: "string", minLength: 1, maxLength: 100 } },
    expectedUpdatedAt: { type: "string", format: "date-time" },
  },
} as const;
