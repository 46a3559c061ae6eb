/** `client.vaults`: vaults and their credentials (secrets sealed by the service, never returned). */
import type { Api } from "../api.js";
import { offsetPages } from "../pagination.js";
import { init, ok, type Body, type Query, type RequestOptions } from "../request.js";

export function vaultsResource(api: Api) {
  const path = (vaultId: string) => ({ path: { vaultId } });
  const credential = (vaultId: string, credentialId: string) => ({ path: { vaultId, credentialId } });
  return {
    create: (body: Body<"createVault">, options?: RequestOptions) => ok(api.POST("/v1/vaults", { body, ...init(options) })),
    get: (vaultId: string, options?: RequestOptions) => ok(api.GET("/v1/vaults/{vaultId}", { params: path(vaultId), ...init(options) })),
    list: (query: Query<"listVaults"> = {}, options?: RequestOptions) =>
      offsetPages((offset) => ok(api.GET("/v1/vaults", { params: { query: { ...query, ...(offset !== undefined ? { offset } : {}) } }, ...init(options) }))),
    archive: (vaultId: string, options?: RequestOptions) => ok(api.POST("/v1/vaults/{vaultId}/archive", { params: path(vaultId), ...init(options) })),
    delete: (vaultId: string, options?: RequestOptions) => ok(api.DELETE("/v1/vaults/{vaultId}", { params: path(vaultId), ...init(options) })),
    credentials: {
      create: (vaultId: string, body: Body<"createCredential">, options?: RequestOptions) =>
        ok(api.POST("/v1/vaults/{vaultId}/credentials", { params: path(vaultId), body, ...init(options) })),
      get: (vaultId: string, credentialId: string, options?: RequestOptions) =>
        ok(api.GET("/v1/vaults/{vaultId}/credentials/{credentialId}", { params: credential(vaultId, credentialId), ...init(options) })),
      list: (vaultId: string, query: Query<"listCredentials"> = {}, options?: RequestOptions) =>
        offsetPages((offset) =>
          ok(
            api.GET("/v1/vaults/{vaultId}/credentials", {
              params: { ...path(vaultId), query: { ...query, ...(offset !== undefined ? { offset } : {}) } },
              ...init(options),
            }),
          ),
        ),
      update: (vaultId: string, credentialId: string, body: Body<"updateCredential">, options?: RequestOptions) =>
        ok(api.PATCH("/v1/vaults/{vaultId}/credentials/{credentialId}", { params: credential(vaultId, credentialId), body, ...init(options) })),
      archive: (vaultId: string, credentialId: string, options?: RequestOptions) =>
        ok(api.POST("/v1/vaults/{vaultId}/credentials/{credentialId}/archive", { params: credential(vaultId, credentialId), ...init(options) })),
      delete: (vaultId: string, credentialId: string, options?: RequestOptions) =>
        ok(api.DELETE("/v1/vaults/{vaultId}/credentials/{credentialId}", { params: credential(vaultId, credentialId), ...init(options) })),
    },
  };
}
export type VaultsResource = ReturnType<typeof vaultsResource>;
