/** Where a request's deployments are, as its caller sees them: the interface's address and the workspace path. */
import type { Context } from "koa";
import type { DeploymentServices } from "./context.js";
import type { Placement } from "./present.js";

export function placementOf(services: DeploymentServices, ctx: Context): Placement {
  // Without a configured public address, the one the caller used (Koa reads Host; proxies are not trusted).
  return { baseUrl: services.config.deploymentsPublicUrl ?? `${ctx.protocol}://${ctx.host}`, workspacePathOf: services.workspacePathOf };
}
