/**
 * Route declaration, schema first: a route names its path, query, body and response schemas once. The
 * wrapper validates each part and hands the handler typed values (types derived from the same schemas);
 * the declarations of an app also make its OpenAPI document (`openapi.ts`).
 */
import type Router from "@koa/router";
import type { Context, Middleware } from "koa";
import type { FromSchemas } from "../../schemas/index.js";
import { AppError } from "../errors.js";
import { requireScope } from "../accounts/access.js";
import type { KeyScope } from "../accounts/store/organizations.js";
import { idempotent, type IdempotencyKeys, type KeyedRequest, type Once } from "../idempotency/index.js";
import type { AppState } from "./context.js";
import { keptHeaders } from "./errors.js";
import type { Principal } from "../accounts/store/organizations.js";
import type { Validator } from "./validate.js";

export type Method = "get" | "post" | "put" | "patch" | "delete";

/** A schema of `schemas/`, named by its `$id`. */
export interface NamedSchema {
  readonly $id: string;
}

export type Success =
  /** `also`: other statuses answered with the same shape (readiness's 503). */
  { status: number; schema: NamedSchema; rateLimited?: true; also?: number[] } | { status: 200; stream: true };

export interface RouteSpec<
  P extends NamedSchema | undefined = undefined,
  Q extends NamedSchema | undefined = undefined,
  B extends NamedSchema | undefined = undefined,
> {
  method: Method;
  /** Koa path syntax, e.g. `/v1/agents/:agentId`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers the route reads (documented; the handler checks them). */
  headers?: { name: string; description: string }[];
  /** The success response; `rateLimited` when it carries the allowance's `RateLimit-*` headers. */
  success: Success;
  /** Error statuses besides those every route may answer (see `errorStatuses`). */
  errors?: number[];
  /** Served without an API key. */
  open?: true;
  /** The scope the key must carry (`403 forbidden` without it); routes of the core interface need none beyond `api`. */
  scope?: KeyScope;
  /**
   * The handler awaits the key's ceiling count (`RouteRequest.ceiling`) together with its own first
   * read, so the hot path pays one round trip for both; other handlers run once the count is known.
   */
  ceilingWithFirstRead?: true;
  /** Takes an `Idempotency-Key` (set by `Routes` for the POSTs of an interface that keeps keys). */
  idempotent?: true;
}

type Typed<S> = S extends NamedSchema ? FromSchemas<S> : Record<string, never>;

export interface RouteRequest<P, Q, B> {
  params: Typed<P>;
  query: Typed<Q>;
  body: Typed<B>;
  /** The caller's organization (authenticated routes). */
  readonly orgId: string;
  /** The key's ceiling count, for a handler that awaits it with its first read (`ceilingWithFirstRead`). */
  ceiling: Promise<void>;
  /** The request's Idempotency-Key, for a handler that commits it with its own write (`Once`). */
  once?: Once;
  ctx: Context & { state: AppState };
}

/**
 * A handler's request. `orgId` is read lazily (an open route has no caller), by a getter on the class:
 * a getter in an object literal gives each request a hidden class of its own, allocated in the old
 * generation, whose pointer to the request kept every request's objects alive through the young
 * generation's collections (they promoted, and the collections' pauses grew with them).
 */
export class HandlerRequest<P, Q, B> implements RouteRequest<P, Q, B> {
  constructor(
    readonly params: Typed<P>,
    readonly query: Typed<Q>,
    readonly body: Typed<B>,
    readonly ceiling: Promise<void>,
    readonly once: Once | undefined,
    readonly ctx: Context & { state: AppState },
  ) {}

  get orgId(): string {
    return principalOf(this.ctx).orgId;
  }
}

/** A request with an Idempotency-Key, as request replay fingerprints it. */
function keyedRequestOf(ctx: Context): KeyedRequest {
  return { key: String(ctx.headers["idempotency-key"]), method: ctx.method, path: ctx.path, body: ctx.request.body };
}

/**
 * What a handler answers; `undefined` when it wrote the response itself (a stream). `kept`: what an
 * Idempotency-Key keeps to replay instead of `body`, when the body shows a secret once.
 */
export type RouteReply = { body: unknown; status?: number; headers?: Record<string, string>; kept?: unknown } | undefined;

/** The answer of a create under an Idempotency-Key: the resource presented, marked replayed when a first attempt made it. */
export function keptReply<T>(made: { value: T; replayed: boolean }, present: (value: T) => unknown): { body: unknown; headers: Record<string, string> } {
  return { body: present(made.value), headers: keptHeaders(made) };
}

/**
 * The statuses a route may answer with an error: 400 and 431 (any request can be malformed or carry
 * too much in its headers), 415 for the methods that take a body (one in a Content-Encoding not
 * decoded), 404 when the path names a resource, 401, 403 and 429 for routes behind an API key, 500
 * and 503 for all; and the route's own.
 */
export function errorStatuses(spec: RouteSpec<NamedSchema | undefined, NamedSchema | undefined, NamedSchema | undefined>): number[] {
  const statuses = new Set([400, 431, 500, 503, ...(spec.errors ?? [])]);
  if (["post", "put", "patch"].includes(spec.method)) statuses.add(415);
  if (spec.params) statuses.add(404);
  // 403: a key without the scope of the interface or of the route.
  if (!spec.open) [401, 403, 429].forEach((s) => statuses.add(s));
  for (const s of "also" in spec.success ? (spec.success.also ?? []) : []) statuses.delete(s);
  return [...statuses].sort();
}

export function principalOf(ctx: { state: AppState }): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new AppError("unauthorized", "missing API key");
  return principal;
}

type AnySpec = RouteSpec<NamedSchema | undefined, NamedSchema | undefined, NamedSchema | undefined>;

/** The routes of one router, with their declarations kept for the document. */
export class Routes {
  readonly specs: AnySpec[] = [];

  /**
   * `bodies`: middleware that reads request bodies, run by each route after its scope check (a key
   * without the scope learns nothing from how its body is read). `idempotency`: where the POSTs' keys are
   * kept, read when a request comes (declaring the routes for the document needs none).
   */
  constructor(
    readonly router: Router,
    private readonly validator: Validator,
    private readonly bodies: Middleware<AppState>[] = [],
    private readonly idempotency?: () => IdempotencyKeys,
  ) {}

  add<P extends NamedSchema | undefined = undefined, Q extends NamedSchema | undefined = undefined, B extends NamedSchema | undefined = undefined>(
    spec: RouteSpec<P, Q, B>,
    // NoInfer: the schemas are inferred from the spec alone; inferring them back through the derived types is ruinously expensive.
    handler: (req: NoInfer<RouteRequest<P, Q, B>>) => Promise<RouteReply>,
  ): void {
    if (this.idempotency && spec.method === "post" && !spec.open)
      spec = { ...spec, idempotent: true, errors: [...new Set([...(spec.errors ?? []), 409, 422])] };
    this.specs.push(spec as AnySpec);
    const { validator, idempotency } = this;
    const scope: Middleware<AppState> = async (ctx, next) => {
      if (spec.scope) requireScope(principalOf(ctx), spec.scope);
      await next();
    };
    this.router[spec.method](spec.path, scope, ...this.bodies, async (koa) => {
      const ctx = koa as Context & { state: AppState };
      const params = spec.params ? validator.query(spec.params.$id, ctx.params, "path") : {};
      const query = spec.query ? validator.query(spec.query.$id, ctx.query) : {};
      const body = spec.body ? validator.body(spec.body.$id, ctx.request.body) : {};
      const ceiling = ctx.state.ceiling ?? Promise.resolve();
      const keyed = spec.idempotent !== undefined && idempotency !== undefined && ctx.headers["idempotency-key"] !== undefined;
      // A replayed answer runs no handler to await the count with: it is awaited here.
      if (!spec.ceilingWithFirstRead || keyed) await ceiling;
      const run = (once?: Once) => handler(new HandlerRequest<P, Q, B>(params as Typed<P>, query as Typed<Q>, body as Typed<B>, ceiling, once, ctx));
      const reply = keyed ? await idempotent(keyedRequestOf(ctx), principalOf(ctx).orgId, idempotency!(), spec.success.status, run) : await run();
      if (!reply) return;
      if (reply.headers) ctx.set(reply.headers);
      ctx.status = reply.status ?? spec.success.status;
      ctx.body = reply.body;
    });
  }
}
