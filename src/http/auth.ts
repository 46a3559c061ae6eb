/** `x-api-key` → organization, then the per-key request ceiling (fixed 60-second window in Redis). */
import type { Middleware } from "koa";
import { consume, rateLimitHeaders, windowStart } from "../redis/fixed-window.js";
import type { AppState, Services } from "./context.js";
import { ApiError, unavailable } from "./errors.js";

const MAX_KEY_LENGTH = 256;

export function authenticate(services: Services): Middleware<AppState> {
  return async (ctx, next) => {
    const header = ctx.get("x-api-key");
    if (!header) throw new ApiError(401, "unauthorized", "missing x-api-key header");
    const principal = header.length <= MAX_KEY_LENGTH ? await services.organizations.authenticate(header) : null;
    if (!principal) throw new ApiError(401, "unauthorized", "invalid or revoked API key");
    ctx.state.principal = principal;

    let result;
    try {
      result = await consume(services.redis, services.eventLog.keys.keyCeiling(principal.keyId, windowStart()), principal.requestsPerMinute, 1);
    } catch (err) {
      services.log.warn("key ceiling could not be checked", { err });
      throw unavailable("the request ceiling cannot be verified; retry with exponential backoff");
    }
    if (!result.allowed) {
      throw new ApiError(429, "rate_limited", `this API key allows ${result.limit} requests per minute`, {
        ...rateLimitHeaders(result),
        "Retry-After": String(result.resetAfterSeconds),
        "Cache-Control": "no-store",
      });
    }
    await next();
  };
}
