/** VersionsListQuery */
export const versionsListQuerySchema = {
  $id: "versions-list-query",
  title: "VersionsListQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 100, default: 50 },
    offset: { type: "integer", minimum: 0, maximum: 100000, default: 0 },
  },
} as const;
