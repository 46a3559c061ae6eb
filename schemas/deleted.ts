/** Deleted: the result of a permanent delete (of an agent, a session, a vault, a credential or an automation). */
export const deletedSchema = {
  $id: "deleted",
  title: "Deleted",
  type: "object",
  required: ["object", "id", "deleted"],
  additionalProperties: false,
  properties: { object: { enum: ["agent.deleted", "agent.session_deleted", "vault.deleted", "vault_credential.deleted", "automation.deleted"] }, id: { type: "string" }, deleted: { const: true } },
} as const;
