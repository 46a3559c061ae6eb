/** Liveness and readiness, unauthenticated, for orchestrators. */
import type Router from "@koa/router";
import { pingMongo } from "../../store/mongo.js";
import type { Services } from "../context.js";

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timed out")), CHECK_TIMEOUT_MS).unref())]);
}

async function check(fn: () => Promise<unknown>): Promise<"ok" | "unavailable"> {
  try {
    await withTimeout(fn());
    return "ok";
  } catch {
    return "unavailable";
  }
}

export function healthRoutes(router: Router, services: Services): void {
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    const [mongodb, redis] = await Promise.all([check(() => pingMongo(services.mongo.db)), check(() => services.redis.ping())]);
    const ready = mongodb === "ok" && redis === "ok";
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? "ok" : "unavailable", checks: { mongodb, redis } };
  });
}
