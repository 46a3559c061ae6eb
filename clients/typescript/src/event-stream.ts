/**
 * A session's events as an async iterator, read from its SSE stream with `fetch` (the key in a header,
 * never in the URL) and parsed by `eventsource-parser`. After any disconnect (a network error, the
 * server ending the stream or going away, a connection gone silent) it reconnects with exponential
 * backoff and jitter and resumes with `Last-Event-ID`, plus `after`, the last durable sequence, which
 * serves when no frame had an id. Durable events come once each, in sequence order: one the server
 * replays again is dropped by its sequence. `position` can be saved to resume in another process.
 * `onState` is told what it is doing (connecting, live, reconnecting, closed), for a status display.
 * It needs only the platform's `fetch`, streams and timers, so it runs in Node and in browsers alike.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { backoffDelay, sleep, type BackoffOptions } from "./delay.js";
import { APIConnectionError, ApiError, apiErrorOf, UNEXPECTED_RESPONSE } from "./errors.js";
import type { Event } from "./events.js";

/** Where a stream is: enough to resume it, here or in another process. */
export interface StreamPosition {
  /** The `id` of the last frame received, as the server sent it (opaque). */
  lastEventId: string | null;
  /** The last durable sequence delivered; 0 before the first. */
  sequence: number;
}

export interface ReconnectInfo {
  /** Failed attempts in a row, this one included. */
  attempt: number;
  /** The wait before the next connection is opened. */
  delayMs: number;
  /** What ended the last connection or refused the last attempt. */
  cause: unknown;
}

/**
 * What the stream is doing, told to `onState` as it changes: `connecting` when the iteration starts,
 * `live` each time a connection is answered, `reconnecting` after each failure (it stays so during the
 * wait and the next attempt), `closed` once when the iteration ends, with the `error` it throws if any.
 */
export type StreamState = { state: "connecting" } | { state: "live" } | ({ state: "reconnecting" } & ReconnectInfo) | { state: "closed"; error?: unknown };

export interface EventStreamOptions {
  /** Resume from a saved `position` (or a sequence alone): events after it. Default: the session's first event. */
  from?: { lastEventId?: string | null; sequence: number };
  /** Live-only frames too (`sequence: null`: message deltas, `session.tool_updated`); default true. */
  liveFrames?: boolean;
  /** Waits between reconnects; `maxAttempts`: failed attempts in a row before the iterator throws (default: no end). */
  reconnect?: BackoffOptions & { maxAttempts?: number };
  /** A connection that answers or sends nothing for this long (keep-alives included) is dropped and reopened (default 45 s; the server sends keep-alives every 15 s). */
  idleTimeoutMs?: number;
  /** Ends the iteration (quietly). */
  signal?: AbortSignal;
  /** Told of each change of state (for a status display, or to log reconnects). */
  onState?: (state: StreamState) => void;
}

export interface StreamTarget {
  baseUrl: string;
  apiKey: string;
  sessionId: string;
  fetch: (request: Request) => Promise<Response>;
}

/** Statuses after which opening the stream again can succeed; any other refusal ends the iteration. */
const retriable = (status: number) => status === 429 || status >= 500;

export class EventStream implements AsyncIterable<Event> {
  private lastEventId: string | null;
  private sequence: number;
  /**
   * The open connection's request, held for its life: fetch follows the request's signal only weakly
   * (nodejs/node#55428), so once the request was collected an abort would no longer reach the connection.
   */
  private request: Request | null = null;

  constructor(
    private readonly target: StreamTarget,
    private readonly options: EventStreamOptions = {},
  ) {
    this.lastEventId = options.from?.lastEventId ?? null;
    this.sequence = options.from?.sequence ?? 0;
  }

  get position(): StreamPosition {
    return { lastEventId: this.lastEventId, sequence: this.sequence };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Event, void, undefined> {
    const tell = this.options.onState ?? (() => undefined);
    let failure: { error: unknown } | undefined;
    tell({ state: "connecting" });
    try {
      yield* this.connections(tell);
    } catch (error) {
      failure = { error };
      throw error;
    } finally {
      // Also when the reader leaves the loop (`break`), which returns through here.
      tell(failure ? { state: "closed", error: failure.error } : { state: "closed" });
    }
  }

  /** Connection after connection, until a refusal that retrying cannot change, the attempts run out, or the signal. */
  private async *connections(tell: (state: StreamState) => void): AsyncGenerator<Event, void, undefined> {
    const { signal, reconnect = {} } = this.options;
    for (let failures = 0; !signal?.aborted;) {
      const connection = new AbortController();
      const stop = () => connection.abort(signal?.reason);
      signal?.addEventListener("abort", stop, { once: true });
      let cause: unknown;
      let retryAfterMs: number | undefined;
      try {
        const response = await this.unlessSilent(this.open(connection.signal), connection);
        if (response.ok) {
          tell({ state: "live" });
          for await (const event of this.events(response, connection)) {
            failures = 0;
            yield event;
          }
          cause = new Error("the server ended the stream");
        } else {
          const refusal = await apiErrorOf(response);
          // A cursor this stream did not issue: resume by sequence instead.
          if (refusal.status === 400 && this.lastEventId !== null) this.lastEventId = null;
          else if (!retriable(refusal.status)) throw refusal;
          cause = refusal;
          if (refusal.retryAfterSeconds !== undefined) retryAfterMs = refusal.retryAfterSeconds * 1000;
        }
      } catch (err) {
        if (signal?.aborted) return;
        if (err instanceof ApiError) throw err;
        cause = err;
      } finally {
        signal?.removeEventListener("abort", stop);
        connection.abort();
        this.request = null;
      }
      failures++;
      if (failures > (reconnect.maxAttempts ?? Infinity))
        throw cause instanceof ApiError ? cause : new APIConnectionError(`the event stream failed ${failures} times in a row`, { cause });
      const delayMs = retryAfterMs ?? backoffDelay(failures, reconnect);
      tell({ state: "reconnecting", attempt: failures, delayMs, cause });
      try {
        await sleep(delayMs, signal);
      } catch {
        return;
      }
    }
  }

  private open(signal: AbortSignal): Promise<Response> {
    const { baseUrl, apiKey, sessionId } = this.target;
    const url = new URL(`${baseUrl.replace(/\/+$/, "")}/v1/sessions/${encodeURIComponent(sessionId)}/events/stream`);
    url.searchParams.set("after", String(this.sequence));
    const headers: Record<string, string> = { accept: "text/event-stream", "x-api-key": apiKey };
    if (this.lastEventId !== null) headers["last-event-id"] = this.lastEventId;
    this.request = new Request(url, { headers, signal });
    return this.target.fetch(this.request);
  }

  /** The events of one connection, until it ends, fails or stays silent too long. */
  private async *events(response: Response, connection: AbortController): AsyncGenerator<Event, void, undefined> {
    if (!response.body) throw new ApiError(response.status, UNEXPECTED_RESPONSE, "the stream has no body");
    const messages: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (m) => messages.push(m) });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const chunk = await this.unlessSilent(reader.read(), connection);
        if (chunk.done) return;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        for (const message of messages.splice(0)) {
          const event = this.accept(message);
          if (event) yield event;
        }
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }

  /**
   * Waits for `step` of the connection; when the server stays silent too long, fails at once and aborts
   * the connection (not waiting for the abort to reach `step`: a `fetch` given by the caller may not obey it).
   */
  private async unlessSilent<T>(step: Promise<T>, connection: AbortController): Promise<T> {
    const idleMs = this.options.idleTimeoutMs ?? 45_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const cause = new Error(`the stream was silent for ${idleMs} ms`);
        connection.abort(cause);
        reject(cause);
      }, idleMs);
    });
    try {
      return await Promise.race([step, silent]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Moves the position past a frame; the event, unless it was delivered already or is not wanted. */
  private accept(message: EventSourceMessage): Event | undefined {
    if (message.id) this.lastEventId = message.id;
    let event: Event;
    try {
      event = JSON.parse(message.data) as Event;
    } catch {
      throw new ApiError(200, UNEXPECTED_RESPONSE, "a stream frame's data is not JSON");
    }
    if (event.sequence === null) return this.options.liveFrames === false ? undefined : event;
    if (event.sequence <= this.sequence) return undefined;
    this.sequence = event.sequence;
    return event;
  }
}
