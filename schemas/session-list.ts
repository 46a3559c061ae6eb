/** SessionList: a page of sessions, newest first. */
export const sessionListSchema = {
  $id: "session-list",
  title: "SessionList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "session" } }, pagination: { $ref: "offset-pagination" } },
} as const;
