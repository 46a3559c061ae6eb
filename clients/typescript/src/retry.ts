/**
 * Requests refused for now, sent again: a `429` (by the spec, refused before anything was stored) after
 * its `Retry-After`, and a `503` that says when to come back (`Retry-After`); any other answer is the
 * caller's. Attempts are bounded, and so is the wait a client accepts.
 */
import { backoffDelay, sleep, type BackoffOptions } from "./delay.js";
import { retryAfterSeconds } from "./errors.js";

export interface RetryInfo {
  method: string;
  url: string;
  /** The attempt that was refused (1 for the first). */
  attempt: number;
  status: number;
  retryAfterSeconds: number | undefined;
  /** The wait before the next attempt. */
  delayMs: number;
}

export interface RetryOptions {
  /** Attempts in all, the first included (default 3); 1 turns retrying off. */
  maxAttempts?: number;
  /** A longer wait is not made: the refusal is the answer (default 60 s, an allowance's window). */
  maxDelayMs?: number;
  /** The waits after a `429` without `Retry-After`. */
  backoff?: BackoffOptions;
  /** Up to this much is added to a `Retry-After`, so refused clients do not all return at once (default 500 ms). */
  jitterMs?: number;
  /** Told before each wait. */
  onRetry?: (retry: RetryInfo) => void;
}

/** The wait before sending again after `response` (attempt number `attempt`), or undefined: do not. */
export function retryDelay(response: Response, attempt: number, options: RetryOptions = {}, random = Math.random): number | undefined {
  const { maxAttempts = 3, maxDelayMs = 60_000, jitterMs = 500 } = options;
  const after = retryAfterSeconds(response.headers);
  // The wait asked for is what maxDelayMs bounds; the jitter added to it is not (a full window's
  // Retry-After of 60 s is still waited with the default).
  let wait: number;
  let jitter = 0;
  if (response.status === 429 && after === undefined) wait = backoffDelay(attempt, options.backoff, random);
  else if (response.status === 429 || (response.status === 503 && after !== undefined)) {
    wait = after! * 1000;
    jitter = random() * jitterMs;
  } else return undefined;
  return attempt < maxAttempts && wait <= maxDelayMs ? Math.ceil(wait + jitter) : undefined;
}

/**
 * `fetch` that sends a request again while `retryDelay` says so (the request's signal ends a wait). A POST
 * goes with an `Idempotency-Key` (the caller's, else a new one), the same on every attempt: a `503` may
 * come after the service did the work, and the key makes sending it again safe.
 */
export function retryingFetch(fetchImpl: (request: Request) => Promise<Response>, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method === "POST" && !request.headers.has("idempotency-key")) {
      const headers = new Headers(request.headers);
      headers.set("idempotency-key", globalThis.crypto.randomUUID());
      request = new Request(request, { headers });
    }
    for (let attempt = 1; ; attempt++) {
      const response = await fetchImpl(request.clone());
      const delayMs = retryDelay(response, attempt, options);
      if (delayMs === undefined) return response;
      await response.body?.cancel();
      options.onRetry?.({
        method: request.method,
        url: request.url,
        attempt,
        status: response.status,
        retryAfterSeconds: retryAfterSeconds(response.headers),
        delayMs,
      });
      await sleep(delayMs, request.signal);
    }
  };
}
