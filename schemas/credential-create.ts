/** CredentialCreate: `displayName` and `auth` are required; `metadata` defaults to null. */
export const credentialCreateSchema = {
  $id: "credential-create",
  title: "CredentialCreate",
  description: "`displayName` and `auth` are required; `metadata` defaults to null.",
  type: "object",
  required: ["displayName", "auth"],
  additionalProperties: false,
  properties: {
    displayName: { type: "string", minLength: 1, maxLength: 200 },
    metadata: { anyOf: [{ $ref: "metadata" }, { type: "null" }] },
    auth: { $ref: "credential-auth-input" },
  },
} as const;
