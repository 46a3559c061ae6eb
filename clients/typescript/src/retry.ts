/**
 * Requests that failed for now, sent again: a connection refused, reset or timed out; a `429` (by the
 * spec, refused before anything was stored); a `5xx`. Each waits its `Retry-After` when the answer has
 * one, else backoff with jitter. Every attempt of a `POST` carries one `Idempotency-Key`, so a retry of
 * work the service did (its answer lost) is answered from the kept result, not done twice. Retries and
 * the wait a client accepts are bounded; past them a refusal is the answer and no answer is an
 * `APIConnectionError`.
 */
import { backoffDelay, sleep, type BackoffOptions } from "./delay.js";
import { APIConnectionError, APIConnectionTimeoutError, retryAfterSeconds } from "./errors.js";

export interface RetryInfo {
  method: string;
  url: string;
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** Its status, or undefined when it got no answer. */
  status: number | undefined;
  /** What failed when there was no answer (a connection error, a timeout). */
  error?: unknown;
  retryAfterSeconds: number | undefined;
  /** The wait before the next attempt. */
  delayMs: number;
}

export interface RetryOptions {
  /** Retries after the first attempt (default 2); 0 turns retrying off. */
  maxRetries?: number;
  /** A longer wait (a `Retry-After`) is not made: the refusal is the answer (default 60 s, an allowance's window). */
  maxDelayMs?: number;
  /** The waits when the answer does not say (default 0.5 s doubling, up to 15 s). */
  backoff?: BackoffOptions;
  /** Up to this much is added to a `Retry-After`, so refused clients do not all return at once (default 500 ms). */
  jitterMs?: number;
  /** An attempt with no response's headers after this long is abandoned as timed out (default 120 s). */
  timeoutMs?: number;
  /** Told before each wait. */
  onRetry?: (retry: RetryInfo) => void;
}

/** The statuses worth sending again: an allowance's or ceiling's `429`, and the service's failures. */
export const retriableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * The wait before sending again after `failure` (attempt number `attempt`: a response, or `null` for no
 * answer), or undefined: do not.
 */
export function retryDelay(failure: Response | null, attempt: number, options: RetryOptions = {}, random = Math.random): number | undefined {
  const { maxRetries = 2, maxDelayMs = 60_000, jitterMs = 500 } = options;
  if (attempt > maxRetries || (failure && !retriableStatus(failure.status))) return undefined;
  const after = failure ? retryAfterSeconds(failure.headers) : undefined;
  // The wait asked for is what maxDelayMs bounds; the jitter added to it is not (a full window's
  // Retry-After of 60 s is still waited with the default).
  if (after === undefined) return backoffDelay(attempt, options.backoff, random);
  return after * 1000 <= maxDelayMs ? Math.ceil(after * 1000 + random() * jitterMs) : undefined;
}

/** Why an attempt got no answer: the caller's abort (rethrown as it is), a timeout, or the connection. */
class Timeout extends Error {}

/** One attempt, abandoned when no response's headers arrive within `timeoutMs`. */
async function attempt(fetchImpl: (request: Request) => Promise<Response>, request: Request, timeoutMs: number): Promise<Response> {
  const controller = new AbortController();
  const stop = () => controller.abort(request.signal.reason);
  request.signal.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(() => controller.abort(new Timeout(`no response within ${timeoutMs} ms`)), timeoutMs);
  try {
    return await fetchImpl(new Request(request.clone(), { signal: controller.signal }));
  } catch (err) {
    if (request.signal.aborted) throw request.signal.reason;
    throw controller.signal.reason instanceof Timeout ? controller.signal.reason : err;
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener("abort", stop);
  }
}

/**
 * `fetch` that sends a request again while `retryDelay` says so (the request's signal ends a wait). A POST
 * goes with an `Idempotency-Key` (the caller's, else a new one), the same on every attempt.
 */
export function retryingFetch(fetchImpl: (request: Request) => Promise<Response>, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return async (request) => {
    if (request.method === "POST" && !request.headers.has("idempotency-key")) {
      const headers = new Headers(request.headers);
      headers.set("idempotency-key", globalThis.crypto.randomUUID());
      request = new Request(request, { headers });
    }
    for (let n = 1; ; n++) {
      let response: Response | null = null;
      let error: unknown;
      try {
        response = await attempt(fetchImpl, request, timeoutMs);
      } catch (err) {
        if (request.signal.aborted) throw err;
        error = err;
      }
      const delayMs = retryDelay(response, n, options);
      if (delayMs === undefined) {
        if (response) return response;
        if (error instanceof Timeout) throw new APIConnectionTimeoutError(`${request.method} ${request.url}: ${error.message}`, { cause: error });
        throw new APIConnectionError(`${request.method} ${request.url}: no answer (${describe(error)})`, { cause: error });
      }
      await response?.body?.cancel();
      options.onRetry?.({
        method: request.method,
        url: request.url,
        attempt: n,
        status: response?.status,
        ...(response ? {} : { error }),
        retryAfterSeconds: response ? retryAfterSeconds(response.headers) : undefined,
        delayMs,
      });
      await sleep(delayMs, request.signal);
    }
  };
}

/** A failed fetch's reason: Node's `fetch failed` hides it in `cause` (ECONNREFUSED, say). */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
