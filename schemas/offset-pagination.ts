/** OffsetPagination: where a page of an offset-paginated list stands. */
export const offsetPaginationSchema = {
  $id: "offset-pagination",
  title: "OffsetPagination",
  type: "object",
  required: ["limit", "offset", "hasMore"],
  additionalProperties: false,
  properties: { limit: { type: "integer" }, offset: { type: "integer" }, hasMore: { type: "boolean" } },
} as const;
