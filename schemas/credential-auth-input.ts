/**
 * CredentialAuthInput: a credential's `auth` on create, secrets included. `refresh` is optional: an
 * OAuth credential without it cannot be refreshed and needs reconnecting once its token expires.
 * `tokenEndpointAuth.clientSecret` is required for `client_secret_basic` and `client_secret_post` and
 * refused for `none` (checked beside the schema).
 */
export const credentialAuthInputSchema = {
  $id: "credential-auth-input",
  title: "CredentialAuthInput",
  type: "object",
  required: ["type"],
  properties: { type: { type: "string" } },
  discriminator: { propertyName: "type" },
  oneOf: [
    {
      type: "object",
      required: ["type", "mcpServerUrl", "token"],
      additionalProperties: false,
      properties: { type: { const: "static_bearer" }, mcpServerUrl: { $ref: "server-url" }, token: { $ref: "secret-value" } },
    },
    {
      type: "object",
      required: ["type", "mcpServerUrl", "accessToken", "expiresAt"],
      additionalProperties: false,
      properties: {
        type: { const: "mcp_oauth" },
        mcpServerUrl: { $ref: "server-url" },
        accessToken: { $ref: "secret-value" },
        expiresAt: { type: "string", format: "date-time" },
        refresh: {
          type: "object",
          required: ["tokenEndpoint", "clientId", "refreshToken", "tokenEndpointAuth"],
          additionalProperties: false,
          properties: {
            tokenEndpoint: { $ref: "server-url" },
            clientId: { type: "string", minLength: 1, maxLength: 512 },
            refreshToken: { $ref: "secret-value" },
            tokenEndpointAuth: {
              type: "object",
              required: ["type"],
              additionalProperties: false,
              properties: { type: { enum: ["none", "client_secret_basic", "client_secret_post"] }, clientSecret: { $ref: "secret-value" } },
            },
          },
        },
      },
    },
  ],
} as const;
