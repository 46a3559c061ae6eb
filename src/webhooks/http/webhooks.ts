/**
 * An organization's webhook endpoints (Standard Webhooks signatures) and their delivery logs. The
 * signing secret is answered by the creation and by a rotation only; their replay under an
 * Idempotency-Key answers the endpoint without it (a secret is never kept in Redis).
 */
import { pageQuerySchema } from "../../../schemas/page-query.js";
import { webhookDeliverySchema } from "../../../schemas/webhook-delivery.js";
import { webhookDeliveryListSchema } from "../../../schemas/webhook-delivery-list.js";
import { webhookDeliveryPathSchema } from "../../../schemas/webhook-delivery-path.js";
import { webhookEndpointSchema } from "../../../schemas/webhook-endpoint.js";
import { webhookEndpointCreateSchema } from "../../../schemas/webhook-endpoint-create.js";
import { webhookEndpointListSchema } from "../../../schemas/webhook-endpoint-list.js";
import { webhookEndpointPatchSchema } from "../../../schemas/webhook-endpoint-patch.js";
import { webhookEndpointPathSchema } from "../../../schemas/webhook-endpoint-path.js";
import { deletedSchema } from "../../../schemas/deleted.js";
import type { DeliveryDoc } from "../store/webhook-deliveries.js";
import type { WebhookEndpointRecord } from "../store/webhook-endpoints.js";
import type { Services } from "../../http/context.js";
import { presentOffsetPage } from "../../http/present.js";
import { keptHeaders } from "../../http/errors.js";
import type { Routes } from "../../http/route.js";

function presentEndpoint(e: WebhookEndpointRecord, secret?: string) {
  return {
    id: e._id,
    type: "webhook_endpoint" as const,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    enabled: e.enabled,
    ...(secret ? { secret } : {}),
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

function presentDelivery(d: DeliveryDoc) {
  return {
    id: d._id,
    type: "webhook_delivery" as const,
    eventType: d.type,
    status: d.status,
    attempts: d.attempts,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    createdAt: d.createdAt.toISOString(),
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    payload: JSON.parse(d.body) as unknown,
  };
}

export function webhookRoutes(routes: Routes, { webhooks }: Services): void {
  const tag = "Webhooks";
  const path = "/v1/webhooks/:webhookId";
  const ok = { status: 200, schema: webhookEndpointSchema };
  const params = webhookEndpointPathSchema;

  routes.add(
    {
      method: "post",
      path: "/v1/webhooks",
      operationId: "createWebhook",
      summary: "Create a webhook endpoint (its signing secret is answered once)",
      tag,
      body: webhookEndpointCreateSchema,
      success: { status: 201, schema: webhookEndpointSchema },
      errors: [409],
    },
    async ({ orgId, body, once }) => {
      const made = await webhooks.create(orgId, body, once);
      const { endpoint, secret } = made.value;
      return { status: 201, body: presentEndpoint(endpoint, secret), kept: presentEndpoint(endpoint), headers: keptHeaders(made) };
    },
  );
  routes.add(
    {
      method: "get",
      path: "/v1/webhooks",
      operationId: "listWebhooks",
      summary: "List webhook endpoints, newest first",
      tag,
      query: pageQuerySchema,
      success: { status: 200, schema: webhookEndpointListSchema },
    },
    async ({ orgId, query }) => ({ body: presentOffsetPage(await webhooks.list(orgId, query), query, (e) => presentEndpoint(e)) }),
  );
  routes.add(
    { method: "get", path, operationId: "getWebhook", summary: "Get a webhook endpoint (never its secret)", tag, params, success: ok },
    async ({ orgId, params }) => ({ body: presentEndpoint(await webhooks.get(orgId, params.webhookId)) }),
  );
  routes.add(
    {
      method: "patch",
      path,
      operationId: "updateWebhook",
      summary: "Change a webhook endpoint's URL, event types, description or whether it is enabled",
      tag,
      params,
      body: webhookEndpointPatchSchema,
      success: ok,
    },
    async ({ orgId, params, body }) => ({ body: presentEndpoint(await webhooks.update(orgId, params.webhookId, body)) }),
  );
  routes.add(
    {
      method: "post",
      path: `${path}/rotate-secret`,
      operationId: "rotateWebhookSecret",
      summary: "Replace the signing secret (the new one is answered once)",
      tag,
      params,
      success: ok,
    },
    async ({ orgId, params }) => {
      const { endpoint, secret } = await webhooks.rotate(orgId, params.webhookId);
      return { body: presentEndpoint(endpoint, secret), kept: presentEndpoint(endpoint) };
    },
  );
  routes.add(
    {
      method: "delete",
      path,
      operationId: "deleteWebhook",
      summary: "Delete a webhook endpoint and its delivery log",
      tag,
      params,
      success: { status: 200, schema: deletedSchema },
    },
    async ({ orgId, params }) => {
      await webhooks.remove(orgId, params.webhookId);
      return { body: { object: "webhook_endpoint.deleted", id: params.webhookId, deleted: true } };
    },
  );
  routes.add(
    {
      method: "get",
      path: `${path}/deliveries`,
      operationId: "listWebhookDeliveries",
      summary: "The endpoint's deliveries, newest first, with where each one's attempts stand",
      tag,
      params,
      query: pageQuerySchema,
      success: { status: 200, schema: webhookDeliveryListSchema },
    },
    async ({ orgId, params, query }) => ({ body: presentOffsetPage(await webhooks.deliveryLog(orgId, params.webhookId, query), query, presentDelivery) }),
  );
  routes.add(
    {
      method: "get",
      path: `${path}/deliveries/:deliveryId`,
      operationId: "getWebhookDelivery",
      summary: "Get one delivery",
      tag,
      params: webhookDeliveryPathSchema,
      success: { status: 200, schema: webhookDeliverySchema },
    },
    async ({ orgId, params }) => ({ body: presentDelivery(await webhooks.delivery(orgId, params.webhookId, params.deliveryId)) }),
  );
  routes.add(
    {
      method: "post",
      path: `${path}/deliveries/:deliveryId/retry`,
      operationId: "retryWebhookDelivery",
      summary: "Attempt a delivered or failed delivery once more, now",
      tag,
      params: webhookDeliveryPathSchema,
      success: { status: 200, schema: webhookDeliverySchema },
    },
    async ({ orgId, params }) => ({ body: presentDelivery(await webhooks.retry(orgId, params.webhookId, params.deliveryId)) }),
  );
}
