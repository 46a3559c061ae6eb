/**
 * A deployment's filesystem webhook: set (with a new signing secret, shown once), read, remove, and the
 * log of its deliveries. Changes are sent while `features.filesystem_webhooks` is on.
 */
import { deploymentPageQuerySchema } from "../../../schemas/deployment-page-query.js";
import { deploymentPathSchema } from "../../../schemas/deployment-path.js";
import { deploymentWebhookSchema } from "../../../schemas/deployment-webhook.js";
import { deploymentWebhookDeliveryListSchema } from "../../../schemas/deployment-webhook-delivery-list.js";
import { deploymentWebhookPutSchema } from "../../../schemas/deployment-webhook-put.js";
import { deploymentWebhookDeletedSchema } from "../../../schemas/deployment-webhook-deleted.js";
import { validationError } from "../../errors.js";
import { serverUrlProblem } from "../../vaults/domain/mcp-server-url.js";
import { decodeListCursor, encodeListCursor } from "../cursor.js";
import type { WebhookEndpoint } from "../store/webhooks.js";
import type { DeploymentServices } from "./context.js";
import type { Routes } from "../../http/route.js";

function presentWebhook(w: WebhookEndpoint, secret?: string) {
  return {
    deployment_id: w.deploymentId,
    url: w.url,
    ...(secret ? { secret } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

export function deploymentWebhookRoutes(routes: Routes, { deployments, webhooks, deliveries }: DeploymentServices): void {
  const tag = "Webhooks";
  const path = "/v1/deployments/:deployment_id/webhook";

  routes.add(
    {
      method: "put",
      path,
      operationId: "putDeploymentWebhook",
      summary: "Set the filesystem webhook (a new signing secret, shown once)",
      tag,
      scope: "deployments:write",
      params: deploymentPathSchema,
      body: deploymentWebhookPutSchema,
      success: { status: 200, schema: deploymentWebhookSchema },
    },
    async ({ orgId, params, body }) => {
      const problem = serverUrlProblem(body.url);
      if (problem) throw validationError(`url: ${problem}`);
      const { endpoint, secret } = await webhooks.put(await deployments.get(orgId, params.deployment_id), body.url);
      return { body: presentWebhook(endpoint, secret) };
    },
  );
  routes.add(
    {
      method: "get",
      path,
      operationId: "getDeploymentWebhook",
      summary: "Get the filesystem webhook (never its secret)",
      tag,
      scope: "deployments:read",
      params: deploymentPathSchema,
      success: { status: 200, schema: deploymentWebhookSchema },
    },
    async ({ orgId, params }) => ({ body: presentWebhook(await webhooks.get(await deployments.get(orgId, params.deployment_id))) }),
  );
  routes.add(
    {
      method: "delete",
      path,
      operationId: "deleteDeploymentWebhook",
      summary: "Remove the filesystem webhook",
      tag,
      scope: "deployments:write",
      params: deploymentPathSchema,
      success: { status: 200, schema: deploymentWebhookDeletedSchema },
    },
    async ({ orgId, params }) => {
      await webhooks.remove(await deployments.get(orgId, params.deployment_id));
      return { body: { deployment_id: params.deployment_id, webhook: "deleted" } };
    },
  );
  routes.add(
    {
      method: "get",
      path: `${path}/deliveries`,
      operationId: "listDeploymentWebhookDeliveries",
      summary: "The webhook's deliveries, newest first, with each one's status",
      tag,
      scope: "deployments:read",
      params: deploymentPathSchema,
      query: deploymentPageQuerySchema,
      success: { status: 200, schema: deploymentWebhookDeliveryListSchema },
    },
    async ({ orgId, params, query }) => {
      const d = await deployments.get(orgId, params.deployment_id);
      const before = query.cursor === undefined ? undefined : decodeListCursor("deliveries", query.cursor);
      const page = await deliveries.page(d._id, { limit: query.limit ?? 20, ...(before ? { before } : {}) });
      const last = page.items[page.items.length - 1];
      const data = page.items.map((x) => ({
        delivery_id: x._id,
        type: x.type,
        status: x.status,
        attempts: x.attempts,
        last_status: x.lastStatus,
        last_error: x.lastError,
        created_at: x.createdAt.toISOString(),
        delivered_at: x.deliveredAt?.toISOString() ?? null,
      }));
      return { body: { data, next_cursor: page.more && last ? encodeListCursor("deliveries", last._id) : null } };
    },
  );
}
