/**
 * Failures as sentences a person can act on: the API's refusals by their code (the message the API
 * wrote is kept where it says what to fix), a service that cannot be reached, and anything else.
 */
import { ApiError } from "@agent-sessions/client";

function refusal(err: ApiError): string {
  switch (err.code) {
    case "validation_error":
      return `Not accepted: ${err.message}.`;
    case "invalid_state":
      return `Not now: ${err.message}.`;
    case "no_active_turn":
      return "The session no longer waits for this answer.";
    case "not_found":
      return "Not found: it may have been deleted, or belong to another organization.";
    case "conflict":
      return `Changed meanwhile: ${err.message}. Reload and try again.`;
    case "unauthorized":
      return "Your key was refused.";
    case "forbidden":
      return `Not allowed: ${err.message}.`;
    case "rate_limited":
      return `Too many requests${err.retryAfterSeconds !== undefined ? `: try again in ${err.retryAfterSeconds} s` : "; try again shortly"}.`;
    case "unexpected_response":
      return `The service answered unexpectedly (HTTP ${err.status}).`;
    default:
      return err.status >= 500 ? `The service failed (${err.message}); try again.` : `${err.message}.`;
  }
}

export function describe(err: unknown): string {
  if (err instanceof ApiError) return refusal(err).replace(/\.\.$/, ".");
  // fetch rejects with a TypeError when nothing answered (no network, the service down).
  if (err instanceof TypeError) return "The service cannot be reached; check that it is running.";
  return err instanceof Error ? err.message : String(err);
}
