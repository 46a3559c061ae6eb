/** Every request under `/v1` carries an `x-api-key`: resolved to its organization and counted against the key's ceiling. */
import type { Middleware } from "koa";
import type { AppState, Services } from "./context.js";

export function authenticate(services: Services): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.principal = await services.access.authenticate(ctx.get("x-api-key"));
    await next();
  };
}
