/** Secret: a secret of the account as shown; its value is never returned. */
export const secretSchema = {
  $id: "secret",
  title: "Secret",
  type: "object",
  required: ["secret_id", "name", "created_at", "updated_at"],
  additionalProperties: false,
  properties: {
    secret_id: { type: "string", description: "The reference (`sec_<id>`) a deployment's `secrets` map names." },
    name: { type: "string" },
    created_at: { $ref: "timestamp" },
    updated_at: { $ref: "timestamp", description: "When the name or the value last changed." },
  },
} as const;
