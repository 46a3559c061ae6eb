/**
 * The application's one error type. Services, stores, Redis code and the worker throw it; it knows nothing
 * of HTTP. The HTTP layer maps each code to a status and a wire code in one table (`src/http/errors.ts`).
 */

export type ErrorCode =
  | "validation_error"
  | "unauthorized"
  | "forbidden"
  /** Refusals of the HTTP parser: headers or chunk extensions too large, a request too slow to arrive. */
  | "headers_too_large"
  | "payload_too_large"
  | "request_timeout"
  /** A request body in a Content-Encoding the service does not decode. */
  | "unsupported_encoding"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  /** An Idempotency-Key reused for another request. */
  | "idempotency_error"
  | "invalid_state"
  | "no_active_turn"
  | "rate_limited"
  /** A required service (Redis, MongoDB) cannot be reached, or a model provider is not configured. */
  | "unavailable"
  /** A session changed too often for a transition to apply within its bound; retrying later can work. */
  | "busy"
  /** An upstream credential or connector operation failed. */
  | "upstream_failed"
  | "runtime_delete_failed"
  /** Deployments interface: the account's credits do not cover the operation. */
  | "insufficient_credits"
  /** The session's spend budget is reached: no new turn until the limit is raised. */
  | "budget_exceeded"
  /** Deployments interface: a skill could not be fetched or parsed. */
  | "invalid_skill"
  /** Deployments interface: a secret reference names no secret of the account. */
  | "invalid_secret_ref"
  /** A worker's writes were refused: its turn lock was taken over. Never reaches a client. */
  | "lock_lost"
  | "internal";

/** A fixed 60-second window's standing, as a 429 or a limited success reports it. */
export interface RateLimitStanding {
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetAfterSeconds: number;
  periodSeconds: number;
  /** The allowance that ran out; absent for the per-key request ceiling. */
  resource?: "conversations" | "messages";
}

export interface ErrorDetails {
  rateLimit?: RateLimitStanding;
  /** Which ceiling without a resource of the spec's a 429 met: the key's requests (the default), or the organization's open streams. */
  ceiling?: "requests" | "streams";
  /** Methods a path does allow (method_not_allowed). */
  allow?: string;
  /** The content codings a request body may be sent in (unsupported_encoding). */
  acceptEncoding?: string;
  /** The HTTP status an upstream server answered (upstream_failed), for the caller's retry decision; never shown. */
  upstreamStatus?: number;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    /** What went wrong underneath, for the log; never shown to a client. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "AppError";
  }
}

export function isAppError(err: unknown, ...codes: ErrorCode[]): err is AppError {
  return err instanceof AppError && (codes.length === 0 || codes.includes(err.code));
}

/** At most this many `path: constraint` entries in one message; the rest are counted. */
const MAX_MESSAGE_ENTRIES = 20;

/** `path: constraint` entries joined by `; ` (the validation message format); never holds a submitted value. */
export function joinEntries(entries: string[]): string {
  const shown = entries.slice(0, MAX_MESSAGE_ENTRIES);
  const rest = entries.length - shown.length;
  return shown.join("; ") + (rest > 0 ? `; and ${rest} more` : "");
}

export const validationError = (entries: string | string[], cause?: unknown) =>
  new AppError("validation_error", typeof entries === "string" ? entries : joinEntries(entries), {}, cause);
export const notFound = (what: string) => new AppError("not_found", `${what} not found`);
export const conflict = (message: string) => new AppError("conflict", message);
export const invalidState = (message: string) => new AppError("invalid_state", message);
/** An Idempotency-Key sent again with another request (another path or body). */
export const idempotencyMismatch = () =>
  new AppError("idempotency_error", "this Idempotency-Key was used for another request (another path or body); use a new key for a new request");
export const unavailable = (message: string, cause?: unknown) => new AppError("unavailable", message, {}, cause);
