/**
 * What the account holds for its deployments: its secrets (values kept encrypted, referenced from
 * deployments as `sec_<id>` and given to their tool processes as environment variables; a value is
 * written, never read back) and its credit balance.
 */
import { deploymentCreditsSchema } from "../../../schemas/deployment-credits.js";
import { deploymentPageQuerySchema } from "../../../schemas/deployment-page-query.js";
import { secretCreateSchema } from "../../../schemas/secret-create.js";
import { secretDeletedSchema } from "../../../schemas/secret-deleted.js";
import { secretListSchema } from "../../../schemas/secret-list.js";
import { secretPathSchema } from "../../../schemas/secret-path.js";
import { secretUpdateSchema } from "../../../schemas/secret-update.js";
import { secretSchema } from "../../../schemas/secret.js";
import { formatUsd } from "../../accounts/domain/credits.js";
import type { DeploymentServices } from "./context.js";
import { presentSecret, presentSecretList } from "./present-secret.js";
import { keptReply, type Routes } from "../../http/route.js";

export function accountRoutes(routes: Routes, { secrets, credits }: DeploymentServices): void {
  routes.add(
    {
      method: "get",
      path: "/v1/credits",
      operationId: "getCredits",
      summary: "The account's credit balance",
      tag: "Credits",
      scope: "deployments:read",
      success: { status: 200, schema: deploymentCreditsSchema },
    },
    async ({ orgId }) => {
      const { metered, balanceMicros } = await credits.balance(orgId);
      return { body: { metered, balance_usd: formatUsd(balanceMicros) } };
    },
  );

  const tag = "Secrets";
  const one = "/v1/secrets/:secret_id";

  routes.add(
    {
      method: "post",
      path: "/v1/secrets",
      operationId: "createSecret",
      summary: "Store a secret; answers its reference (`sec_…`), never the value",
      tag,
      scope: "deployments:write",
      body: secretCreateSchema,
      success: { status: 201, schema: secretSchema },
    },
    async ({ orgId, body, once }) => ({ status: 201, ...keptReply(await secrets.createKept(orgId, body, once), presentSecret) }),
  );
  routes.add(
    {
      method: "get",
      path: "/v1/secrets",
      operationId: "listSecrets",
      summary: "The account's secrets, newest first (names and times only)",
      tag,
      scope: "deployments:read",
      query: deploymentPageQuerySchema,
      success: { status: 200, schema: secretListSchema },
    },
    async ({ orgId, query }) => ({
      body: presentSecretList(await secrets.list(orgId, { limit: query.limit ?? 20, ...(query.cursor ? { cursor: query.cursor } : {}) })),
    }),
  );
  routes.add(
    {
      method: "get",
      path: one,
      operationId: "getSecret",
      summary: "Get a secret's name and times",
      tag,
      scope: "deployments:read",
      params: secretPathSchema,
      success: { status: 200, schema: secretSchema },
    },
    async ({ orgId, params }) => ({ body: presentSecret(await secrets.get(orgId, params.secret_id)) }),
  );
  routes.add(
    {
      method: "patch",
      path: one,
      operationId: "updateSecret",
      summary: "Rotate a secret's value or rename it; deployments use the new value from their next command",
      tag,
      scope: "deployments:write",
      params: secretPathSchema,
      body: secretUpdateSchema,
      success: { status: 200, schema: secretSchema },
    },
    async ({ orgId, params, body }) => ({ body: presentSecret(await secrets.replaceValue(orgId, params.secret_id, body)) }),
  );
  routes.add(
    {
      method: "delete",
      path: one,
      operationId: "deleteSecret",
      summary: "Delete a secret (refused while a deployment references it)",
      tag,
      scope: "deployments:write",
      params: secretPathSchema,
      success: { status: 200, schema: secretDeletedSchema },
      errors: [409],
    },
    async ({ orgId, params }) => {
      await secrets.delete(orgId, params.secret_id);
      return { body: { secret_id: params.secret_id, status: "deleted" } };
    },
  );
}
