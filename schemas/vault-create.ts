/** VaultCreate: `displayName` is required (people pick vaults by it); `metadata` defaults to `{}`. */
export const vaultCreateSchema = {
  $id: "vault-create",
  title: "VaultCreate",
  description: "`displayName` is required; `metadata` defaults to `{}`.",
  type: "object",
  required: ["displayName"],
  additionalProperties: false,
  properties: {
    displayName: { type: "string", minLength: 1, maxLength: 200 },
    metadata: { $ref: "metadata" },
  },
} as const;
