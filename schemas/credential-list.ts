/** CredentialList: a page of a vault's active credentials, newest first. */
export const credentialListSchema = {
  $id: "credential-list",
  title: "CredentialList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "credential" } }, pagination: { $ref: "offset-pagination" } },
} as const;
