/** SecretListQuery: the page of the secrets list. */
export const secretListQuerySchema = {
  $id: "secret-list-query",
  title: "SecretListQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
    cursor: { type: "string", minLength: 1, maxLength: 200, description: "`next_cursor` of the previous page." },
  },
} as const;
