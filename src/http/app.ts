/** The Koa application: middleware order is the request's path through the service. */
import Router from "@koa/router";
import Koa from "koa";
import { authenticate } from "./auth.js";
import { settleBodies } from "./body-leftovers.js";
import { consoleFiles } from "./console.js";
import type { AppState, Services } from "./context.js";
import { bodyParser, errors, requireJson } from "./middleware.js";
import { requestMetrics } from "./metrics.js";
import { traced } from "./tracing.js";
import { buildOpenApi } from "./openapi.js";
import { Routes } from "./route.js";
import { agentVaultRoutes } from "../vaults/http/agent-vaults.js";
import { mcpServerRoutes } from "../vaults/http/mcp-servers.js";
import { agentRoutes } from "../agents/http/agents.js";
import { automationRoutes } from "../automations/http/automations.js";
import { eventRoutes } from "../sessions/http/events.js";
import { mcpInstallationRoutes } from "../vaults/http/mcp-installations.js";
import { openRoutes } from "../health/http/health.js";
import { sessionRoutes } from "../sessions/http/sessions.js";
import { vaultRoutes } from "../vaults/http/vaults.js";
import { webhookRoutes } from "../webhooks/http/webhooks.js";

/** The core interface's routes, declared once: `createApp` serves them, and the document they serve describes them. */
function coreRoutes(services: Services): { open: Routes; api: Routes } {
  const open = new Routes(new Router(), services.validator);
  const api = new Routes(new Router(), services.validator, [], () => services.idempotency);
  let document: Record<string, unknown> | undefined;
  openRoutes(open, services, () => (document ??= buildOpenApi([...open.specs, ...api.specs])));
  agentRoutes(api, services);
  agentVaultRoutes(api, services);
  mcpServerRoutes(api, services);
  mcpInstallationRoutes(api, services);
  sessionRoutes(api, services);
  vaultRoutes(api, services);
  eventRoutes(api, services);
  automationRoutes(api, services);
  webhookRoutes(api, services);
  return { open, api };
}

/**
 * The document `GET /v1/openapi.json` serves, without serving it: declaring the routes runs no handler,
 * so the services need not be started (the TypeScript client's types are generated from it).
 */
export function coreOpenApi(services: Services): Record<string, unknown> {
  const { open, api } = coreRoutes(services);
  return buildOpenApi([...open.specs, ...api.specs]);
}

export function createApp(services: Services): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true;
  const { open, api } = coreRoutes(services);

  app.use(traced());
  app.use(settleBodies());
  app.use(errors(services.log));
  app.use(requestMetrics());
  app.use(consoleFiles());
  app.use(open.router.routes());
  app.use(open.router.allowedMethods());
  app.use(authenticate(services));
  app.use(requireJson());
  app.use(bodyParser(/^\/v1\/sessions\/[^/]+\/events$/));
  app.use(api.router.routes());
  app.use(api.router.allowedMethods());
  return app;
}
