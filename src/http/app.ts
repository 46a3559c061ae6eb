/** The Koa application: middleware order is the request's path through the service. */
import Router from "@koa/router";
import Koa from "koa";
import { authenticate } from "./auth.js";
import { settleBodies } from "./body-leftovers.js";
import { consoleFiles } from "./console.js";
import type { AppState, Services } from "./context.js";
import { bodyParser, errors, requireJson } from "./middleware.js";
import { requestMetrics } from "./metrics.js";
import { buildOpenApi } from "./openapi.js";
import { Routes } from "./route.js";
import { agentVaultRoutes } from "./routes/agent-vaults.js";
import { mcpServerRoutes } from "./routes/mcp-servers.js";
import { agentRoutes } from "./routes/agents.js";
import { automationRoutes } from "./routes/automations.js";
import { eventRoutes } from "./routes/events.js";
import { mcpInstallationRoutes } from "./routes/mcp-installations.js";
import { openRoutes } from "./routes/health.js";
import { sessionRoutes } from "./routes/sessions.js";
import { vaultRoutes } from "./routes/vaults.js";
import { webhookRoutes } from "./routes/webhooks.js";

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
