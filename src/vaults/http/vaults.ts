/** Vaults and their credentials. Credentials answer with `auth` redacted (see `presentCredential`). */
import { credentialSchema } from "../../../schemas/credential.js";
import { credentialCreateSchema } from "../../../schemas/credential-create.js";
import { credentialListSchema } from "../../../schemas/credential-list.js";
import { credentialPathSchema } from "../../../schemas/credential-path.js";
import { credentialUpdateSchema } from "../../../schemas/credential-update.js";
import { deletedSchema } from "../../../schemas/deleted.js";
import { vaultSchema } from "../../../schemas/vault.js";
import { vaultCreateSchema } from "../../../schemas/vault-create.js";
import { vaultListSchema } from "../../../schemas/vault-list.js";
import { vaultPathSchema } from "../../../schemas/vault-path.js";
import { pageQuerySchema } from "../../../schemas/page-query.js";
import type { Services } from "../../http/context.js";
import { presentCredential, presentOffsetPage, presentVault } from "../../http/present.js";
import { keptReply, type Routes } from "../../http/route.js";

export function vaultRoutes(routes: Routes, { vaults, credentials }: Services): void {
  const tag = "Vaults";
  const vaultOk = { status: 200, schema: vaultSchema };
  const credentialOk = { status: 200, schema: credentialSchema };

  routes.add(
    {
      method: "post",
      path: "/v1/vaults",
      operationId: "createVault",
      summary: "Create a vault",
      tag,
      body: vaultCreateSchema,
      success: { status: 201, schema: vaultSchema },
    },
    async ({ orgId, body, once }) => keptReply(await vaults.create(orgId, body, once), presentVault),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/vaults",
      operationId: "listVaults",
      summary: "List active vaults, newest first",
      tag,
      query: pageQuerySchema,
      success: { status: 200, schema: vaultListSchema },
    },
    async ({ orgId, query }) => ({ body: presentOffsetPage(await vaults.list(orgId, query), query, presentVault) }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/vaults/:vaultId",
      operationId: "getVault",
      summary: "Get an active or archived vault",
      tag,
      params: vaultPathSchema,
      success: vaultOk,
    },
    async ({ orgId, params }) => ({ body: presentVault(await vaults.get(orgId, params.vaultId)) }),
  );

  routes.add(
    {
      method: "post",
      path: "/v1/vaults/:vaultId/archive",
      operationId: "archiveVault",
      summary: "Archive a vault (idempotent)",
      tag,
      params: vaultPathSchema,
      success: vaultOk,
    },
    async ({ orgId, params }) => ({ body: presentVault(await vaults.archive(orgId, params.vaultId)) }),
  );

  routes.add(
    {
      method: "delete",
      path: "/v1/vaults/:vaultId",
      operationId: "deleteVault",
      summary: "Delete an empty vault and its agent attachments",
      tag,
      params: vaultPathSchema,
      success: { status: 200, schema: deletedSchema },
      errors: [409],
    },
    async ({ orgId, params }) => {
      await vaults.delete(orgId, params.vaultId);
      return { body: { object: "vault.deleted", id: params.vaultId, deleted: true } };
    },
  );

  routes.add(
    {
      method: "post",
      path: "/v1/vaults/:vaultId/credentials",
      operationId: "createCredential",
      summary: "Create a credential; its secrets are never returned",
      tag,
      params: vaultPathSchema,
      body: credentialCreateSchema,
      success: { status: 201, schema: credentialSchema },
      errors: [409],
    },
    async ({ orgId, params, body, once }) => keptReply(await credentials.create(orgId, params.vaultId, body, once), presentCredential),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/vaults/:vaultId/credentials",
      operationId: "listCredentials",
      summary: "List a vault's active credentials, newest first",
      tag,
      params: vaultPathSchema,
      query: pageQuerySchema,
      success: { status: 200, schema: credentialListSchema },
    },
    async ({ orgId, params, query }) => ({ body: presentOffsetPage(await credentials.list(orgId, params.vaultId, query), query, presentCredential) }),
  );

  routes.add(
    {
      method: "get",
      path: "/v1/vaults/:vaultId/credentials/:credentialId",
      operationId: "getCredential",
      summary: "Get an active or archived credential",
      tag,
      params: credentialPathSchema,
      success: credentialOk,
    },
    async ({ orgId, params }) => ({ body: presentCredential(await credentials.get(orgId, params.vaultId, params.credentialId)) }),
  );

  routes.add(
    {
      method: "patch",
      path: "/v1/vaults/:vaultId/credentials/:credentialId",
      operationId: "updateCredential",
      summary: "Update display fields or rotate secrets",
      tag,
      params: credentialPathSchema,
      body: credentialUpdateSchema,
      success: credentialOk,
      errors: [409],
    },
    async ({ orgId, params, body }) => ({ body: presentCredential(await credentials.update(orgId, params.vaultId, params.credentialId, body)) }),
  );

  routes.add(
    {
      method: "post",
      path: "/v1/vaults/:vaultId/credentials/:credentialId/archive",
      operationId: "archiveCredential",
      summary: "Archive a credential (idempotent)",
      tag,
      params: credentialPathSchema,
      success: credentialOk,
    },
    async ({ orgId, params }) => ({ body: presentCredential(await credentials.archive(orgId, params.vaultId, params.credentialId)) }),
  );

  routes.add(
    {
      method: "delete",
      path: "/v1/vaults/:vaultId/credentials/:credentialId",
      operationId: "deleteCredential",
      summary: "Delete a credential and its stored value",
      tag,
      params: credentialPathSchema,
      success: { status: 200, schema: deletedSchema },
    },
    async ({ orgId, params }) => {
      await credentials.delete(orgId, params.vaultId, params.credentialId);
      return { body: { object: "vault_credential.deleted", id: params.credentialId, deleted: true } };
    },
  );
}
