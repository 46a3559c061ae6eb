/** VaultsListQuery: the paging of vault and credential lists, as the other lists page. */
export const vaultsListQuerySchema = {
  $id: "vaults-list-query",
  title: "VaultsListQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 100, default: 50 },
    offset: { type: "integer", minimum: 0, maximum: 100000, default: 0 },
  },
} as const;
