/**
 * SecretCreate: the body that stores a secret of the account. `value` is any text without a NUL
 * character (it becomes an environment variable's value), at most 64 KiB in UTF-8 (checked beside the
 * schema, which counts characters); it is never returned, logged or echoed in an error.
 */

/** Characters of a value; its UTF-8 size is bounded by SECRET_VALUE_BYTES (src/vaults/secrets.ts) too. */
export const SECRET_VALUE_FIELD = { type: "string", minLength: 1, maxLength: 65536, pattern: "^[^\\u0000]+$", writeOnly: true } as const;
export const SECRET_NAME_FIELD = { type: "string", minLength: 1, maxLength: 200, description: "A label for people; not unique." } as const;

export const secretCreateSchema = {
  $id: "secret-create",
  title: "SecretCreate",
  type: "object",
  required: ["name", "value"],
  additionalProperties: false,
  properties: { name: SECRET_NAME_FIELD, value: SECRET_VALUE_FIELD },
} as const;
