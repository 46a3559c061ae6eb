/**
 * Every request under `/v1` carries an `x-api-key`: resolved to its organization and counted against the
 * key's ceiling. The count is started here and awaited by the route before its handler runs, or by the
 * handler beside its own first read (`RouteSpec.ceilingWithFirstRead`), so its round trip overlaps the
 * rest of the request instead of preceding it. A request no handler took still answers `429` past the
 * ceiling, as the count is awaited here last.
 */
import type { Context, Middleware } from "koa";
import type { Principal } from "../accounts/store/organizations.js";
import type { AppState, Services } from "./context.js";

export function authenticate(services: Pick<Services, "access">): Middleware<AppState> {
  return authenticateBy(services, async (ctx) => services.access.identify(ctx.get("x-api-key")));
}

/** The same for any way of presenting a key (`identify` resolves it, or throws `unauthorized`/`forbidden`). */
export function authenticateBy(services: Pick<Services, "access">, identify: (ctx: Context) => Promise<Principal>): Middleware<AppState> {
  return async (ctx, next) => {
    const principal = await identify(ctx);
    const ceiling = services.access.charge(principal);
    ceiling.catch(() => undefined); // observed below; until then a refusal must not count as unhandled
    ctx.state.principal = principal;
    ctx.state.ceiling = ceiling;
    try {
      await next();
    } finally {
      await ceiling;
    }
  };
}
