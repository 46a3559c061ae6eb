/** The middleware every app of the service runs a request through: the one error path, and JSON bodies. */
import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";
import { koaBody } from "koa-body";
import { attachmentSchema } from "../../schemas/attachment.js";
import { AppError, isAppError, validationError } from "../errors.js";
import { runWithRequest, type Logger } from "../log.js";
import type { AppState } from "./context.js";
import { clientWentAway, errorResponse } from "./errors.js";
import { acceptContentCoding, bodyRefusal } from "./request-body.js";
import { unreachableStore } from "../store-errors.js";

/** Room for the largest attachment the schema allows (a 50 MB PDF as a data URL) and its batch around it, and no more. */
export const EVENTS_BODY_LIMIT_BYTES = attachmentSchema.properties.source.properties.dataUrl.maxLength + 2 * 1024 * 1024;
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/** A caller's `X-Request-Id` is kept only when it is short and plain (it goes into every log line of the request); else one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * The one error path: every error thrown below becomes the `{error, message}` response of its code. A
 * 5xx is logged with its cause. A client that went away (its connection closed while its request was
 * read) is not a failure of the service: logged at info with the cause, and nothing is answered. A
 * response already on its way (SSE writes its own headers) cannot be replaced; its error is logged and
 * the connection ended.
 */
export function errors(log: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const offered = ctx.get("x-request-id");
    ctx.state.requestId = REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.set("x-request-id", ctx.state.requestId);
    const started = Date.now();
    try {
      await runWithRequest(ctx.state.requestId, next);
      if (ctx.body === undefined && ctx.respond !== false && (ctx.status === 405 || ctx.status === 501)) {
        throw new AppError("method_not_allowed", "method not allowed on this path", { allow: ctx.response.get("Allow") });
      }
      if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false) throw new AppError("not_found", "no such route");
    } catch (caught) {
      const { status, headers, body } = errorResponse(caught);
      const where = { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path };
      if (!ctx.writable && clientWentAway(caught)) {
        log.info("client went away", { ...where, err: caught });
        ctx.res.destroy();
        return;
      }
      if (ctx.headerSent || !ctx.writable) {
        // A stream (SSE) whose catch-up met a store out of reach is an outage, as below, not a fault.
        log[unreachableStore(caught) ? "warn" : "error"]("request failed after its response began", { ...where, err: caught });
        ctx.res.destroy();
        return;
      }
      // An upstream's failure (an MCP server, a token endpoint) is the caller's to fix, not ours: a warning.
      if (isAppError(caught, "upstream_failed")) log.warn("upstream failed", { ...where, err: caught });
      // A store out of reach fails every request until it is back: an outage for readiness and metrics to show, not a fault per request.
      else if (unreachableStore(caught)) log.warn("a store cannot be reached", { ...where, err: caught });
      else if (status >= 500) log.error("request failed", { ...where, err: caught });
      ctx.status = status;
      ctx.set(headers);
      ctx.body = { ...body, requestId: ctx.state.requestId };
    } finally {
      log.debug("request", { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Date.now() - started });
    }
  };
}

/** The methods whose bodies are read. */
const BODY_METHODS = ["POST", "PUT", "PATCH"];

/** Bodies must be JSON (koa-body alone would silently ignore a body of another type); `raw`: paths that take any bytes. */
export function requireJson(raw?: RegExp): Middleware<AppState> {
  return async (ctx, next) => {
    const hasBody = ctx.request.length > 0 || ctx.get("transfer-encoding") !== "";
    if (hasBody && BODY_METHODS.includes(ctx.method) && !raw?.test(ctx.path) && !ctx.is("application/json", "+json")) {
      throw validationError("content-type: must be application/json");
    }
    await next();
  };
}

/** koa-body, for JSON alone (strict: an object or array; an empty body is `{}`) of POST, PUT and PATCH, up to `limit` bytes once decoded. */
function jsonBodies(limit: number): Middleware<AppState> {
  return koaBody({
    jsonLimit: limit,
    jsonStrict: true,
    jsonTypes: ["application/json", "+json"],
    urlencoded: false,
    text: false,
    onError: (err, ctx) => {
      throw bodyRefusal(err, ctx.req, limit);
    },
  }) as unknown as Middleware<AppState>;
}

/**
 * JSON bodies into `ctx.request.body`, in a coding checked first (415 for one not decoded), up to the
 * default limit, or the events limit on the paths that send events; `raw`: paths whose routes read
 * their own bytes (`readRawBody`).
 */
export function bodyParser(eventPaths: RegExp, raw?: RegExp): Middleware<AppState> {
  const events = jsonBodies(EVENTS_BODY_LIMIT_BYTES);
  const other = jsonBodies(DEFAULT_BODY_LIMIT_BYTES);
  return (ctx, next) => {
    if (raw?.test(ctx.path)) return next();
    // koa-body begins its read in this same tick.
    if (BODY_METHODS.includes(ctx.method)) acceptContentCoding(ctx.req);
    return eventPaths.test(ctx.path) ? events(ctx, next) : other(ctx, next);
  };
}
