/**
 * CredentialUpdate: display fields, and secrets to rotate. `auth.type` must be the credential's own
 * (it is immutable); `static_bearer` takes a new `token`, `mcp_oauth` any of `accessToken`, `expiresAt`,
 * `refresh.refreshToken` and `refresh.tokenEndpointAuth.clientSecret` (every secret value is accepted
 * on rotation; the method, `tokenEndpointAuth.type`, stays the credential's own). The server address
 * and the OAuth client are not changed here: a credential for another server or client is a new
 * credential.
 */
export const credentialUpdateSchema = {
  $id: "credential-update",
  title: "CredentialUpdate",
  description: "At least one field. `auth.type` is immutable: it must be the credential's own.",
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    displayName: { type: "string", minLength: 1, maxLength: 200 },
    metadata: { anyOf: [{ $ref: "metadata" }, { type: "null" }] },
    auth: {
      type: "object",
      required: ["type"],
      properties: { type: { type: "string" } },
      discriminator: { propertyName: "type" },
      oneOf: [
        {
          type: "object",
          required: ["type", "token"],
          additionalProperties: false,
          properties: { type: { const: "static_bearer" }, token: { $ref: "secret-value" } },
        },
        {
          type: "object",
          required: ["type"],
          minProperties: 2,
          additionalProperties: false,
          properties: {
            type: { const: "mcp_oauth" },
            accessToken: { $ref: "secret-value" },
            expiresAt: { type: "string", format: "date-time" },
            refresh: {
              type: "object",
              minProperties: 1,
              additionalProperties: false,
              properties: {
                refreshToken: { $ref: "secret-value" },
                tokenEndpointAuth: {
                  type: "object",
                  required: ["clientSecret"],
                  additionalProperties: false,
                  properties: { type: { enum: ["client_secret_basic", "client_secret_post"] }, clientSecret: { $ref: "secret-value" } },
                },
              },
            },
          },
        },
      ],
    },
  },
} as const;
