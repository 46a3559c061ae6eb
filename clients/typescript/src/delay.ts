/** Waiting between attempts: exponential backoff with jitter, and a sleep an abort ends. */

export interface BackoffOptions {
  /** The first wait (default 500 ms), doubled after each failed attempt... */
  initialDelayMs?: number;
  /** ...up to this (default 15 s). */
  maxDelayMs?: number;
}

/**
 * The wait before retry number `attempt` (1 for the first): half of the capped exponential delay, plus a
 * random share of the other half, so clients that failed together do not come back together and none
 * comes back at once.
 */
export function backoffDelay(attempt: number, { initialDelayMs = 500, maxDelayMs = 15_000 }: BackoffOptions = {}, random = Math.random): number {
  const capped = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(capped / 2 + random() * (capped / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
