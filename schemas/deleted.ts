/** Deleted: the result of a permanent delete (`agent.deleted` or `agent.session_deleted`). */
export const deletedSchema = {
  $id: "deleted",
  title: "Deleted",
  type: "object",
  required: ["object", "id", "deleted"],
  additionalProperties: false,
  properties: { object: { enum: ["agent.deleted", "agent.session_deleted"] }, id: { type: "string" }, deleted: { const: true } },
} as const;
