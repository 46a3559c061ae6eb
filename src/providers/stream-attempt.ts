/**
 * What the streamed providers (Anthropic, the OpenAI-compatible ones) share around their SDKs: the retry
 * loop of one model call, and one attempt's abort, stall watchdog and handler wrapping. Each provider
 * keeps what is its own: reading its events, its errors' classes and descriptions, its redaction.
 *
 * Retries are ours, not the SDKs' (`maxRetries: 0`), so the policy is explicit and testable: a transient
 * failure is retried with exponential backoff honouring `retry-after`, but only while nothing has reached
 * the handlers, since the caller cannot take back a delta it has already published.
 */
import { isAbort, sleep } from "./provider.js";
import { retryAfterMs } from "./retry-after.js";

const MAX_BACKOFF_MS = 30_000;

/** A failure found by the provider itself inside an attempt. */
export class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    /** The message is the whole error, not a detail under "failed after…" or "refused…". */
    readonly complete = false,
  ) {
    super(message);
  }
}

/** Wraps an error thrown by a handler, so it reaches the caller unchanged (e.g. a lost lock). */
class HandlerFailure {
  constructor(readonly error: unknown) {}
}

const abortError = (): DOMException => new DOMException("aborted", "AbortError");

/** Runs a handler; `provisional` frames (a tool call being written) do not bar a retry. */
export type Emit = (fn: () => Promise<void>, provisional?: boolean) => Promise<void>;

/** Whether anything reached the handlers during the call: it makes a retry impossible. */
export interface Progress {
  emitted: boolean;
}

export interface RetryPolicy {
  /** The API as messages name it: `the anthropic API`. */
  api: string;
  maxAttempts: number;
  retryBaseMs: number;
  /** The turn's error detail for a failed attempt. */
  describe(err: unknown): string;
  isTransient(err: unknown): boolean;
  /** The headers of an error answer, for its `retry-after`. */
  headers(err: unknown): Headers | undefined;
}

/**
 * Runs `attempt` until it succeeds, fails for good or the attempts run out; a failure is handed to `fail`
 * as the turn's error message. An abort of `signal` and a handler's own error are thrown, not answered.
 */
export async function withRetries<T>(
  signal: AbortSignal,
  policy: RetryPolicy,
  attempt: (progress: Progress) => Promise<T>,
  fail: (error: string) => T,
): Promise<T> {
  const progress: Progress = { emitted: false };
  for (let n = 1; ; n++) {
    if (signal.aborted) throw abortError();
    try {
      return await attempt(progress);
    } catch (err) {
      if (err instanceof HandlerFailure) throw err.error;
      if (signal.aborted) throw isAbort(err) ? err : abortError();
      const what = policy.describe(err);
      if (err instanceof AttemptFailure && err.complete) return fail(what);
      if (progress.emitted) return fail(`${policy.api} failed during the response: ${what}`);
      if (!policy.isTransient(err)) return fail(`${policy.api} refused the request: ${what}`);
      if (n >= policy.maxAttempts) return fail(`${policy.api} failed after ${n} attempt${n === 1 ? "" : "s"}: ${what}`);
      // retryBaseMs·2^n, or what the server asks for in `retry-after`; never more than 30 s.
      await sleep(Math.min(retryAfterMs(policy.headers(err)) ?? policy.retryBaseMs * 2 ** (n - 1), MAX_BACKOFF_MS), signal);
    }
  }
}

export interface AttemptOptions {
  /** The caller's signal. */
  signal: AbortSignal;
  /** Longest wait for the response headers, and then for each next event. */
  timeoutMs: number;
  /** The API as messages name it. */
  api: string;
  progress: Progress;
}

/**
 * One attempt's stream. Its controller follows the caller's signal and also fires when the stream stalls,
 * since the SDKs' own timeout only covers the wait for the response headers.
 */
export class StreamAttempt {
  private readonly controller = new AbortController();
  private readonly follow = () => this.controller.abort();
  private stalled = false;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly o: AttemptOptions) {}

  readonly emit: Emit = async (fn, provisional = false) => {
    if (!provisional) this.o.progress.emitted = true;
    try {
      await fn();
    } catch (err) {
      throw new HandlerFailure(err);
    }
  };

  /** Opens the stream with this attempt's signal and yields its events, re-arming the watchdog on each. */
  async *events<E>(open: (signal: AbortSignal) => Promise<{ data: AsyncIterable<E>; response: Response }>): AsyncGenerator<E> {
    const { data, response } = await open(this.controller.signal);
    // A proxy that drops `stream: true` answers JSON, which the SDK would read as a stream that ended early, and retry.
    const type = response.headers.get("content-type") ?? "none";
    if (!type.startsWith("text/event-stream")) {
      this.controller.abort(); // its body is not read
      throw new AttemptFailure(`${this.o.api} answered a streaming request with content-type ${type}, not text/event-stream`, false, true);
    }
    for await (const event of data) {
      this.arm();
      yield event;
    }
  }

  /** Runs `read` under the watchdog; `settle` runs whatever happens (tokens reported may be billed even when the attempt fails). */
  async run(read: () => Promise<void>, settle: () => void): Promise<void> {
    const { signal } = this.o;
    signal.addEventListener("abort", this.follow, { once: true });
    try {
      this.arm();
      await read();
    } catch (err) {
      if (this.stalled && !signal.aborted) throw this.timedOut();
      throw err;
    } finally {
      clearTimeout(this.idle);
      signal.removeEventListener("abort", this.follow);
      settle();
    }
    // The SDKs end the iteration quietly when their signal aborts, so an abort or a stall shows up here.
    if (signal.aborted) throw abortError();
    if (this.stalled) throw this.timedOut();
  }

  private arm(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.stalled = true;
      this.controller.abort();
    }, this.o.timeoutMs);
  }

  private timedOut(): AttemptFailure {
    return new AttemptFailure(`timed out after ${this.o.timeoutMs} ms without a response`, true);
  }
}
