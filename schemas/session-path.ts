/** SessionPath: the path parameters of a session's routes. */
export const sessionPathSchema = {
  $id: "session-path",
  title: "SessionPath",
  type: "object",
  required: ["sessionId"],
  additionalProperties: false,
  properties: { sessionId: { type: "string", minLength: 1, maxLength: 100 } },
} as const;
