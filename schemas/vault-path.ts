/** VaultPath: the path parameters of a vault's routes. */
export const vaultPathSchema = {
  $id: "vault-path",
  title: "VaultPath",
  type: "object",
  required: ["vaultId"],
  additionalProperties: false,
  properties: { vaultId: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
