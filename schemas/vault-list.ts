/** VaultList: a page of active vaults, newest first. */
export const vaultListSchema = {
  $id: "vault-list",
  title: "VaultList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "vault" } }, pagination: { $ref: "offset-pagination" } },
} as const;
