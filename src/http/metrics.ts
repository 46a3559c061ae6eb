/** The core interface's request metrics, and the listener that serves `GET /metrics` to the scraper. */
import { createServer, type Server } from "node:http";
import type { Middleware } from "koa";
import { httpDuration, rateLimited, registry, secondsSince, storeErrors } from "../telemetry/metrics.js";
import { isAppError } from "../errors.js";
import type { AppState } from "./context.js";
import { errorResponse } from "./errors.js";
import { failedStore } from "../store-errors.js";

/**
 * Just inside the error path: times every request by its route template (`ctx._matchedRoute`;
 * `unmatched` for none, so a raw path never becomes a label) with the status it is answered with (a
 * thrown error's, as the error path renders it); counts 429s by resource and failures of the stores.
 */
export function requestMetrics(): Middleware<AppState> {
  return async (ctx, next) => {
    const started = performance.now();
    let status: number | undefined;
    try {
      await next();
    } catch (err) {
      status = errorResponse(err).status;
      const store = failedStore(err);
      if (store) storeErrors.inc({ store });
      if (isAppError(err, "rate_limited")) rateLimited.inc({ resource: err.details.rateLimit?.resource ?? err.details.ceiling ?? "requests" });
      throw err;
    } finally {
      const route = typeof ctx._matchedRoute === "string" ? ctx._matchedRoute : "unmatched";
      httpDuration.observe({ method: ctx.method, route, status: String(status ?? ctx.status) }, secondsSince(started));
    }
  };
}

/** `GET /metrics` and nothing else: no key, so it is bound where only the scraper reaches it (docs/decisions/operations-and-ci.md, "Metrics"). */
export function createMetricsServer(): Server {
  return createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      () => res.writeHead(500, { "content-type": "text/plain" }).end("metrics could not be collected\n"),
    );
  });
}
