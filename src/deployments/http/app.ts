/**
 * The deployments interface: its own Koa app, served on its own port (`DEPLOYMENTS_PORT`), with Bearer
 * keys that carry scopes, and its own OpenAPI document. Errors, bodies and limits go through the same
 * middleware as the core interface.
 */
import Router from "@koa/router";
import Koa, { type Middleware } from "koa";
import { healthSchema } from "../../../schemas/health.js";
import { openapiDocumentSchema } from "../../../schemas/openapi-document.js";
import { authenticateBy } from "../../http/auth.js";
import { settleBodies } from "../../http/body-leftovers.js";
import type { AppState } from "../../http/context.js";
import { bodyParser, errors, requireJson } from "../../http/middleware.js";
import { buildOpenApi, type DocumentIdentity } from "../../http/openapi.js";
import { Routes } from "../../http/route.js";
import { traced } from "../../http/tracing.js";
import { deploymentAutomationRoutes } from "./automations.js";
import { deploymentRoutes } from "./deployments.js";
import { deploymentWebhookRoutes } from "./webhooks.js";
import { accountRoutes } from "./account.js";
import { deploymentThreadRoutes } from "./threads.js";
import type { DeploymentServices } from "./context.js";

const DOCUMENT: DocumentIdentity = {
  title: "Deployments API",
  securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key with the deployments:read and/or deployments:write scopes." } },
  security: [{ bearer: [] }],
};

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** `Authorization: Bearer <key>`: resolved to its organization and counted against the key's ceiling; each route checks its scope. */
function bearer(services: DeploymentServices): Middleware<AppState> {
  return authenticateBy(services, (ctx) => {
    const header = ctx.get("authorization");
    const key = BEARER.exec(header)?.[1] ?? "";
    return services.access.identify(key, null, header ? "the Authorization header must be `Bearer <API key>`" : "missing Authorization: Bearer header");
  });
}

const EVENT_PATHS = /^\/v1\/deployments\/[^/]+\/threads\/[^/]+\/events$/;
const RAW_PATHS = /^\/v1\/deployments\/[^/]+\/files\//;

/** The interface's routes, declared once: `createDeploymentsApp` serves them, and the document they serve describes them. */
function declaredRoutes(services: DeploymentServices): { open: Routes; api: Routes } {
  const open = new Routes(new Router(), services.validator);
  // Bodies are read by each route after its scope check: without the scope, any body is 403.
  const api = new Routes(new Router(), services.validator, [requireJson(RAW_PATHS), bodyParser(EVENT_PATHS, RAW_PATHS)], () => services.idempotency);
  let document: Record<string, unknown> | undefined;
  open.add(
    {
      method: "get",
      path: "/healthz",
      operationId: "getLiveness",
      summary: "Liveness: the process answers",
      tag: "Operations",
      open: true,
      success: { status: 200, schema: healthSchema },
    },
    async () => ({ body: { status: "ok" } }),
  );
  open.add(
    {
      method: "get",
      path: "/v1/openapi.json",
      operationId: "getOpenApiDocument",
      summary: "This document",
      tag: "Operations",
      open: true,
      success: { status: 200, schema: openapiDocumentSchema },
    },
    async () => ({ body: (document ??= buildOpenApi([...open.specs, ...api.specs], DOCUMENT)) }),
  );
  deploymentRoutes(api, services);
  deploymentThreadRoutes(api, services);
  deploymentAutomationRoutes(api, services);
  deploymentWebhookRoutes(api, services);
  accountRoutes(api, services);
  return { open, api };
}

/**
 * The document the interface's `GET /v1/openapi.json` serves, without serving it: declaring the routes
 * runs no handler (the TypeScript client's deployments types are generated from it).
 */
export function deploymentsOpenApi(services: DeploymentServices): Record<string, unknown> {
  const { open, api } = declaredRoutes(services);
  return buildOpenApi([...open.specs, ...api.specs], DOCUMENT);
}

export function createDeploymentsApp(services: DeploymentServices): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true;
  const { open, api } = declaredRoutes(services);
  app.use(traced());
  app.use(settleBodies());
  app.use(errors(services.log));
  app.use(open.router.routes());
  app.use(open.router.allowedMethods());
  app.use(bearer(services));
  app.use(api.router.routes());
  app.use(api.router.allowedMethods());
  return app;
}
