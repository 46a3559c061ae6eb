/**
 * How the `anthropic` provider tells its failures apart: a transient one is retried (429, 529, 408, any
 * 5xx, connection errors, timeouts, a stream that ends early or reports an overloaded, api, rate-limit or
 * timeout error), any other ends the call; and how each is described in the turn's error message.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import { AttemptFailure } from "./stream-attempt.js";

/** Error types the API sends in an SSE `error` event that mean "try again later". */
const TRANSIENT_STREAM_ERRORS = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);

export function isTransient(err: unknown): boolean {
  if (err instanceof AttemptFailure) return err.transient;
  if (err instanceof APIConnectionError) return true;
  if (err instanceof APIError) {
    if (err.status === undefined) return err.type !== null && TRANSIENT_STREAM_ERRORS.has(err.type);
    return err.status === 408 || err.status === 429 || err.status >= 500;
  }
  // Anything else is the connection failing under the SDK (a reset while reading the body).
  return true;
}

/** `529 overloaded_error: Overloaded`, from the status and the API's error body. */
export function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof AttemptFailure) return err.message;
  if (err instanceof APIConnectionError) {
    return err instanceof APIConnectionTimeoutError ? `timed out after ${timeoutMs} ms` : `connection error: ${err.message}`;
  }
  if (err instanceof APIError) {
    const detail = [err.type, err.apiMessage].filter((x): x is string => Boolean(x)).join(": ");
    const status = err.status === undefined ? "" : String(err.status);
    return [status, detail || (err.status === undefined ? err.message : "")].filter(Boolean).join(" ") || "unknown error";
  }
  return err instanceof Error ? `connection error: ${err.message}` : "unknown error";
}
