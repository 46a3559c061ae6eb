/** SecretDeleted: the answer of deleting a secret. */
export const secretDeletedSchema = {
  $id: "secret-deleted",
  title: "SecretDeleted",
  type: "object",
  required: ["secret_id", "status"],
  additionalProperties: false,
  properties: { secret_id: { type: "string" }, status: { const: "deleted" } },
} as const;
