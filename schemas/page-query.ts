/** PageQuery: the paging of offset-paged lists without filters (agent versions, vaults, credentials). */
export const pageQuerySchema = {
  $id: "page-query",
  title: "PageQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 100, default: 50 },
    offset: { type: "integer", minimum: 0, maximum: 100000, default: 0 },
  },
} as const;
