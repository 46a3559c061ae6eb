/**
 * Route declaration: each route names its schemas once, and the same declaration feeds the router and
 * the OpenAPI document.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import type { AppState } from "./context.js";
import { AppError } from "../errors.js";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface RouteSpec {
  method: Method;
  /** Koa path syntax, e.g. `/v1/agents/:agentId`. */
  path: string;
  summary: string;
  tag: string;
  body?: string;
  query?: string;
  status: number;
  /** Whether the response is a Server-Sent Events stream. */
  stream?: boolean;
}

export type Handler = (ctx: Context & { state: AppState }) => Promise<void>;

export const declaredRoutes: RouteSpec[] = [];

export function route(router: Router, spec: RouteSpec, handler: Handler): void {
  declaredRoutes.push(spec);
  router[spec.method](spec.path, async (ctx) => {
    await handler(ctx as Context & { state: AppState });
  });
}

export function principalOf(ctx: { state: AppState }): { orgId: string; keyId: string } {
  const principal = ctx.state.principal;
  if (!principal) throw new AppError("unauthorized", "missing API key");
  return principal;
}
