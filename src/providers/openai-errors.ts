/**
 * How the OpenAI-compatible providers tell their failures apart: a transient one is retried (408, 409,
 * 429, any 5xx, connection errors, timeouts, a stream cut before its finish reason or reporting a server
 * error), any other ends the call; and how each is described in the turn's error message.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { AttemptFailure } from "./stream-attempt.js";

/** Error codes or types a server sends inside a stream that mean "the request itself is wrong". */
const REQUEST_ERRORS = /invalid_request|not_found|authentication|permission|invalid_api_key|model_not_found|context_length/;

export function isTransient(err: unknown): boolean {
  if (err instanceof AttemptFailure) return err.transient;
  if (err instanceof APIConnectionError) return true;
  if (err instanceof APIError) {
    // An error event inside the stream: transient unless it says the request is at fault.
    if (err.status === undefined) return !REQUEST_ERRORS.test(`${err.type ?? ""} ${err.code ?? ""}`);
    return err.status === 408 || err.status === 409 || err.status === 429 || err.status >= 500;
  }
  // Anything else is the connection failing under the SDK (a reset while reading the body).
  return true;
}

/** The server's own message of an error body, whatever its shape (`{error: {message}}`, `{message}`, a string). */
function serverMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | string | undefined;
  if (typeof body === "string") return body;
  if (body && typeof body.message === "string") return body.message;
  return "";
}

/** `404 model_not_found: The model 'x' does not exist`, from the status and the server's error body. */
export function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof AttemptFailure) return err.message;
  if (err instanceof APIConnectionError) {
    return err instanceof APIConnectionTimeoutError ? `timed out after ${timeoutMs} ms` : `connection error: ${err.message}`;
  }
  if (err instanceof APIError) {
    const kind = typeof err.code === "string" && err.code ? err.code : err.type;
    const detail = [kind, serverMessage(err)].filter((x): x is string => Boolean(x)).join(": ");
    const status = err.status === undefined ? "" : String(err.status);
    return [status, detail || (err.status === undefined ? err.message : "")].filter(Boolean).join(" ") || "unknown error";
  }
  return err instanceof Error ? `connection error: ${err.message}` : "unknown error";
}
