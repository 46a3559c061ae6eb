/** Liveness and readiness, unauthenticated, for orchestrators. */
import type Router from "@koa/router";
import type { Services } from "../context.js";

export function healthRoutes(router: Router, services: Services): void {
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    const { ready, checks } = await services.health.readiness();
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? "ok" : "unavailable", checks };
  });
}
