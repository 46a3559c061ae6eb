/** Liveness, readiness and the OpenAPI document: served without an API key. */
import { healthSchema } from "../../../schemas/health.js";
import { openapiDocumentSchema } from "../../../schemas/openapi-document.js";
import type { Services } from "../../http/context.js";
import type { Routes } from "../../http/route.js";

export function openRoutes(routes: Routes, services: Services, document: () => Record<string, unknown>): void {
  const tag = "Operations";

  routes.add(
    {
      method: "get",
      path: "/healthz",
      operationId: "getLiveness",
      summary: "Liveness: the process answers",
      tag,
      open: true,
      success: { status: 200, schema: healthSchema },
    },
    async () => ({ body: { status: "ok" } }),
  );

  routes.add(
    {
      method: "get",
      path: "/readyz",
      operationId: "getReadiness",
      summary: "Readiness: MongoDB and Redis answer (503 with the same body when one does not)",
      tag,
      open: true,
      success: { status: 200, schema: healthSchema, also: [503] },
    },
    async () => {
      const { ready, checks } = await services.health.readiness();
      return { status: ready ? 200 : 503, body: { status: ready ? "ok" : "unavailable", checks } };
    },
  );

  routes.add(
    {
      method: "get",
      path: "/v1/openapi.json",
      operationId: "getOpenApiDocument",
      summary: "This document",
      tag,
      open: true,
      success: { status: 200, schema: openapiDocumentSchema },
    },
    async () => ({ body: document() }),
  );
}
