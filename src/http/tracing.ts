/**
 * The server span of every request, outermost, so it sees the answer the error path wrote: its parent is
 * the caller's `traceparent` when one came, and it names the route template, never the query or a
 * header (an API key, a bearer token).
 */
import type { Middleware } from "koa";
import { contextFrom, SpanKind, SpanStatusCode, tracing, withSpan } from "../telemetry/tracing.js";
import type { AppState } from "./context.js";

export function traced(): Middleware<AppState> {
  return (ctx, next) => {
    if (!tracing()) return next();
    const attributes = { "http.request.method": ctx.method, "url.path": ctx.path, "url.scheme": ctx.protocol };
    return withSpan(
      ctx.method,
      attributes,
      async (span) => {
        try {
          await next();
        } finally {
          // @koa/router names the template it matched (`/v1/sessions/:id/events`).
          const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
          if (typeof route === "string") {
            span.updateName(`${ctx.method} ${route}`);
            span.setAttribute("http.route", route);
          }
          span.setAttribute("http.response.status_code", ctx.status);
          if (ctx.state.requestId) span.setAttribute("agent_sessions.request_id", ctx.state.requestId);
          if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        }
      },
      { kind: SpanKind.SERVER, parent: contextFrom(ctx.headers) ?? null },
    );
  };
}
