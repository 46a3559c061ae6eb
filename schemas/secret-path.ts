/** SecretPath: `{secret_id}`. */
export const secretPathSchema = {
  $id: "secret-path",
  title: "SecretPath",
  type: "object",
  required: ["secret_id"],
  additionalProperties: false,
  properties: { secret_id: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
