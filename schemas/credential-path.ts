/** CredentialPath: the path parameters of a credential's routes. */
export const credentialPathSchema = {
  $id: "credential-path",
  title: "CredentialPath",
  type: "object",
  required: ["vaultId", "credentialId"],
  additionalProperties: false,
  properties: { vaultId: { type: "string", minLength: 1, maxLength: 100 }, credentialId: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
