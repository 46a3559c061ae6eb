/** SecretList: a page of the account's secrets, newest first; `next_cursor` is null on the last page. */
export const secretListSchema = {
  $id: "secret-list",
  title: "SecretList",
  type: "object",
  required: ["data", "next_cursor"],
  additionalProperties: false,
  properties: { data: { type: "array", items: { $ref: "secret" } }, next_cursor: { type: ["string", "null"] } },
} as const;
