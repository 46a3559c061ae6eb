/** Vault: a named set of credentials, attached to agents. */
export const vaultSchema = {
  $id: "vault",
  title: "Vault",
  type: "object",
  required: ["id", "type", "displayName", "metadata", "archivedAt", "createdAt", "updatedAt"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    type: { const: "vault" },
    displayName: { type: "string" },
    metadata: { $ref: "metadata" },
    archivedAt: { anyOf: [{ $ref: "timestamp" }, { type: "null" }] },
    createdAt: { $ref: "timestamp" },
    updatedAt: { $ref: "timestamp" },
  },
} as const;
