/**
 * Application errors in HTTP terms: one table from code to status and wire code, and the one place
 * that renders an error (the 429 body and headers included) as the response the spec describes.
 */
import type { errorSchema } from "../../schemas/error.js";
import { AppError, type ErrorCode, type RateLimitStanding } from "../errors.js";
import { unreachableStore } from "../store-errors.js";

/** The `error` field of a response body: the spec's codes, as the error schema lists them. */
export type WireCode = (typeof errorSchema.properties.error.enum)[number];

export const ERROR_STATUS: Record<ErrorCode, { status: number; error: WireCode }> = {
  validation_error: { status: 400, error: "validation_error" },
  unauthorized: { status: 401, error: "unauthorized" },
  forbidden: { status: 403, error: "forbidden" },
  request_timeout: { status: 408, error: "validation_error" },
  payload_too_large: { status: 413, error: "validation_error" },
  unsupported_encoding: { status: 415, error: "validation_error" },
  headers_too_large: { status: 431, error: "validation_error" },
  not_found: { status: 404, error: "not_found" },
  method_not_allowed: { status: 405, error: "method_not_allowed" },
  conflict: { status: 409, error: "conflict" },
  idempotency_error: { status: 422, error: "idempotency_error" },
  invalid_state: { status: 409, error: "invalid_state" },
  no_active_turn: { status: 409, error: "no_active_turn" },
  rate_limited: { status: 429, error: "rate_limited" },
  internal: { status: 500, error: "server_error" },
  upstream_failed: { status: 502, error: "server_error" },
  runtime_delete_failed: { status: 502, error: "runtime_delete_failed" },
  insufficient_credits: { status: 402, error: "insufficient_credits" },
  budget_exceeded: { status: 409, error: "budget_exceeded" },
  invalid_skill: { status: 422, error: "invalid_skill" },
  invalid_secret_ref: { status: 422, error: "invalid_secret_ref" },
  unavailable: { status: 503, error: "server_error" },
  busy: { status: 503, error: "server_error" },
  lock_lost: { status: 503, error: "server_error" },
};

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: { error: WireCode; message: string; requestId?: string; rateLimit?: Omit<RateLimitStanding, "resource"> & { resource?: string } };
}

/** A send's headers: the allowance's standing, or, for an answer a first attempt had committed, that it is replayed. */
export function sentHeaders(sent: { rateLimit?: RateLimitStanding; replayed?: true }): Record<string, string> {
  return { ...(sent.rateLimit ? rateLimitHeaders(sent.rateLimit) : {}), ...(sent.replayed ? { "Idempotent-Replayed": "true" } : {}) };
}

/** A create's headers under an Idempotency-Key: whether it answers what a first attempt made (`kept-creates.ts`). */
export function keptHeaders(kept: { replayed: boolean }): Record<string, string> {
  return sentHeaders(kept.replayed ? { replayed: true } : {});
}

/** The `RateLimit-*` headers of a limited request, success or 429. */
export function rateLimitHeaders(standing: RateLimitStanding): Record<string, string> {
  return {
    "RateLimit-Limit": String(standing.limit),
    "RateLimit-Remaining": String(standing.remaining),
    "RateLimit-Reset": String(standing.resetAfterSeconds),
  };
}

/**
 * Seconds a 503 asks the client to wait: a store coming back takes seconds; a contended session or a
 * lost lock clears at once.
 */
const RETRY_AFTER_SECONDS: Partial<Record<ErrorCode, number>> = { unavailable: 5, busy: 1, lock_lost: 1 };

const STORE_NAMES = { mongodb: "MongoDB", redis: "Redis" } as const;

/** A store that cannot be reached is an outage to wait out (503), not a failure of the service (500). */
function storeOutage(err: unknown): AppError | null {
  const store = unreachableStore(err);
  return store ? new AppError("unavailable", `${STORE_NAMES[store]} cannot be reached; retry after a few seconds`, {}, err) : null;
}

/**
 * The response for an error. A 429 carries `Retry-After`, the `RateLimit-*` headers and `no-store`;
 * an allowance's 429 also carries the `rateLimit` body field (the per-key ceiling has no resource to name).
 * A 503 carries `Retry-After`. Anything that is not an application error, nor a store out of reach, is a
 * 500 whose cause the caller logs.
 */
export function errorResponse(err: unknown): ErrorResponse {
  const app = err instanceof AppError ? err : (unstorableText(err) ?? storeOutage(err) ?? new AppError("internal", "unexpected error"));
  const { status, error } = ERROR_STATUS[app.code];
  const headers: Record<string, string> = {};
  const retryAfter = RETRY_AFTER_SECONDS[app.code];
  if (retryAfter !== undefined) headers["Retry-After"] = String(retryAfter);
  const body: ErrorResponse["body"] = { error, message: app.message };
  const standing = app.details.rateLimit;
  if (app.code === "rate_limited" && standing) {
    Object.assign(headers, rateLimitHeaders(standing), { "Retry-After": String(standing.resetAfterSeconds), "Cache-Control": "no-store" });
    if (standing.resource) {
      body.rateLimit = {
        resource: standing.resource,
        limit: standing.limit,
        remaining: standing.remaining,
        periodSeconds: standing.periodSeconds,
        resetAfterSeconds: standing.resetAfterSeconds,
      };
    }
  }
  if (app.code === "method_not_allowed" && app.details.allow !== undefined) headers.Allow = app.details.allow;
  // RFC 9110 §15.5.16: a 415 for a content coding names the codings that would have been accepted.
  if (app.code === "unsupported_encoding" && app.details.acceptEncoding !== undefined) headers["Accept-Encoding"] = app.details.acceptEncoding;
  return { status, headers, body };
}

/** Errors of a connection the client closed or reset: reading its request stopped half-way, or never began. */
const CLIENT_GONE_CODES = new Set(["ECONNRESET", "ECONNABORTED", "EPIPE", "ERR_STREAM_PREMATURE_CLOSE"]);
const CLIENT_GONE_TYPES = new Set(["request.aborted", "stream.not.readable"]);

/**
 * Whether `err`, or an error it was caused by, says the client's connection went away mid-request
 * ("request aborted", a reset). The caller also checks that the response can no longer be written, so
 * an upstream's reset (a database connection) is never taken for the client's.
 */
export function clientWentAway(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    const { code, type } = e as Error & { code?: unknown; type?: unknown };
    if ((typeof type === "string" && CLIENT_GONE_TYPES.has(type)) || (typeof code === "string" && CLIENT_GONE_CODES.has(code))) return true;
  }
  return false;
}

/**
 * FerretDB on PostgreSQL cannot store U+0000 in a string (jsonb; SQLSTATE 22P05), which MongoDB can: the
 * request's text, not the service, is what fails there. Told by shape, as HTTP does not import the driver.
 */
function unstorableText(err: unknown): AppError | null {
  const stored = err instanceof Error && err.name === "MongoServerError" && err.message.includes("SQLSTATE 22P05");
  return stored ? new AppError("validation_error", "body: strings must not contain U+0000 (this database cannot store it)") : null;
}
