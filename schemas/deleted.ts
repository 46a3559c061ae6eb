/** Deleted: the result of a permanent delete (of an agent, a session, a vault, a credential, an automation or a webhook endpoint). */
export const deletedSchema = {
  $id: "deleted",
  title: "Deleted",
  type: "object",
  required: ["object", "id", "deleted"],
  additionalProperties: false,
  properties: {
    object: { enum: ["agent.deleted", "agent.session_deleted", "vault.deleted", "vault_credential.deleted", "automation.deleted", "webhook_endpoint.deleted"] },
    id: { type: "string" },
    deleted: { const: true },
  },
} as const;
