/** Credential: a vault's credential for one MCP server; `auth` without its secrets (never returned). */
export const credentialSchema = {
  $id: "credential",
  title: "Credential",
  type: "object",
  required: ["id", "type", "vaultId", "displayName", "metadata", "auth", "archivedAt", "createdAt", "updatedAt"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    type: { const: "vault_credential" },
    vaultId: { type: "string" },
    displayName: { type: "string" },
    metadata: { anyOf: [{ $ref: "metadata" }, { type: "null" }] },
    auth: {
      description: "Redacted: the secrets (`token`, `accessToken`, `refreshToken`, `clientSecret`) are never returned.",
      oneOf: [
        {
          type: "object",
          required: ["type", "mcpServerUrl"],
          additionalProperties: false,
          properties: { type: { const: "static_bearer" }, mcpServerUrl: { type: "string" } },
        },
        {
          type: "object",
          required: ["type", "mcpServerUrl", "expiresAt", "refresh"],
          additionalProperties: false,
          properties: {
            type: { const: "mcp_oauth" },
            mcpServerUrl: { type: "string" },
            expiresAt: { $ref: "timestamp" },
            refresh: {
              anyOf: [
                {
                  type: "object",
                  required: ["tokenEndpoint", "clientId", "tokenEndpointAuth"],
                  additionalProperties: false,
                  properties: {
                    tokenEndpoint: { type: "string" },
                    clientId: { type: "string" },
                    tokenEndpointAuth: {
                      type: "object",
                      required: ["type"],
                      additionalProperties: false,
                      properties: { type: { enum: ["none", "client_secret_basic", "client_secret_post"] } },
                    },
                  },
                },
                { type: "null" },
              ],
            },
          },
        },
      ],
    },
    archivedAt: { anyOf: [{ $ref: "timestamp" }, { type: "null" }] },
    createdAt: { $ref: "timestamp" },
    updatedAt: { $ref: "timestamp" },
  },
} as const;
