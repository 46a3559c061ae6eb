/**
 * What every resource method shares: the per-call options, the operation types read off the generated
 * document (a method's parameters and result are its operation's, never written again here), and
 * `ok()`, which gives a call's data.
 */
import { ApiError, UNEXPECTED_RESPONSE } from "./errors.js";
import type { operations } from "./generated/openapi.js";

/** Options of one call. */
export interface RequestOptions {
  /** Aborts the call (and its retries' waits). */
  signal?: AbortSignal;
  /** The `Idempotency-Key` of a `POST` (default: one the client makes, the same on every retry). */
  idempotencyKey?: string;
  /** More headers. */
  headers?: Record<string, string>;
}

/** The `openapi-fetch` init of `options`. */
export function init(options: RequestOptions = {}): { signal?: AbortSignal; headers?: Record<string, string> } {
  const headers = { ...options.headers, ...(options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {}) };
  return { ...(options.signal ? { signal: options.signal } : {}), ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

type Op = keyof operations;
/** The JSON body an operation takes: `Body<"createAgent">`. */
export type Body<O extends Op> = operations[O] extends { requestBody: { content: { "application/json": infer B } } } ? B : never;
/** The query an operation takes, its defaults optional. */
export type Query<O extends Op> = operations[O] extends { parameters: { query?: infer Q } } ? Partial<NonNullable<Q>> : never;
/** What an operation answers on success: `Result<"getSession">`. */
export type Result<O extends Op> = operations[O] extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { "application/json": infer B } } ? B : never) : never }[keyof R]
  : never;

/**
 * The data of a call, typed without its error branch: `const s = await ok(api.GET(...))`. A refusal has
 * thrown already; a success without a body (none in this API) throws too.
 */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined) throw new ApiError(response.status, UNEXPECTED_RESPONSE, `HTTP ${response.status} without a body`);
  return data;
}
