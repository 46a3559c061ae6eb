/**
 * Server-Sent Events transport for sessions' event streams (`src/streaming/event-stream.ts` decides what
 * is sent, already encoded by `sse-frame.ts`): the organization's place for the stream
 * (`redis/open-streams.ts`), headers, one keep-alive timer for all open streams, and a bound on what a
 * slow reader may leave queued.
 */
import type { ServerResponse } from "node:http";
import type { Config } from "../../config.js";
import type { Logger } from "../../log.js";
import type { OpenStreams } from "../redis/open-streams.js";
import type { Cursor } from "../event-cursor.js";
import type { EventStreams } from "../event-stream.js";
import type { FrameSink } from "../session-feed.js";
import { KEEP_ALIVE } from "./sse-frame.js";
import { sseClients } from "../../telemetry/metrics.js";

/** What of a Koa context the transport takes over. */
export interface StreamContext {
  res: ServerResponse;
  respond?: boolean;
}

export interface SseLimits {
  keepAliveMs: number;
  /** A client with more than this queued (unread by it), beyond the largest frame it is still reading, is disconnected. */
  maxBufferedBytes: number;
}

/** The limits the configuration sets for every event stream, sessions' and deployment threads' alike. */
export function sseLimits(config: Pick<Config, "sseKeepAliveMs" | "sseMaxBufferedBytes">): SseLimits {
  return { keepAliveMs: config.sseKeepAliveMs, maxBufferedBytes: config.sseMaxBufferedBytes };
}

/**
 * One client's stream. A write of frames shared with other clients never waits for this one: Node
 * queues what the socket cannot take at once (the bytes are shared, not copied). The queue is measured
 * after the socket has tried to send this turn's writes, so a burst a reading client takes at once does
 * not count; a client still holding more than the bound then is disconnected. It reconnects with
 * Last-Event-ID and resumes from the log. The bound is raised by the largest frame written since the
 * queue was last empty, so an event larger than the bound itself (an attachment of many megabytes)
 * still reaches a client that reads it.
 *
 * A replay read for this client alone waits instead, while more than the bound is queued, for the
 * client to read (`drained`); a client whose queue has not shrunk for a keep-alive interval meanwhile
 * has stopped reading, and is disconnected.
 */
class SseClient implements FrameSink<Buffer> {
  stop: (() => void) | null = null;
  private ended = false;
  private checking = false;
  private largest = 0;
  /** Settles the replay's wait for this client, if one is waiting. */
  private settleWait: (() => void) | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
    private readonly stallMs: number,
    private readonly onDrop: (queued: number) => void,
    private readonly onClose: () => void,
  ) {}

  get closed(): boolean {
    return this.ended;
  }

  write(wire: Buffer): void {
    if (this.ended) return;
    if (this.res.writableLength === 0) this.largest = 0;
    this.largest = Math.max(this.largest, wire.length);
    this.res.write(wire);
    if (this.res.writableLength > this.maxBufferedBytes + this.largest && !this.checking) {
      this.checking = true;
      setImmediate(() => this.checkQueue());
    }
  }

  drained(): Promise<void> | null {
    if (this.ended || this.res.writableLength <= this.maxBufferedBytes) return null;
    return new Promise((resolve) => {
      let queued = this.res.writableLength;
      const watch = setInterval(() => {
        const now = this.res.writableLength;
        if (now < queued) {
          queued = now;
          return;
        }
        this.drop(now);
        settle();
      }, this.stallMs);
      const settle = () => {
        clearInterval(watch);
        this.res.off("drain", settle);
        this.res.off("close", settle);
        this.settleWait = null;
        resolve();
      };
      this.settleWait = settle;
      this.res.on("drain", settle);
      this.res.on("close", settle);
    });
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.settleWait?.();
    this.stop?.();
    this.onClose();
    if (!this.res.writableEnded) this.res.end();
  }

  private checkQueue(): void {
    this.checking = false;
    const queued = this.res.writableLength;
    if (this.ended || queued <= this.maxBufferedBytes + this.largest) return;
    this.drop(queued);
  }

  /** Lets go of a client that leaves too much unread; it resumes with Last-Event-ID. */
  private drop(queued: number): void {
    this.onDrop(queued);
    this.res.destroy();
  }
}

export class SseTransport {
  private readonly clients = new Set<SseClient>();
  private keepAlive: NodeJS.Timeout | null = null;

  constructor(
    private readonly streams: EventStreams<Buffer>,
    private readonly places: OpenStreams,
    private readonly limits: SseLimits,
    private readonly log: Logger,
  ) {}

  /**
   * Streams the session's (or deployment thread's) events to `res`, once the organization has a place
   * for one more open stream; throws `rate_limited` before any byte is written when it has none.
   */
  async stream(ctx: StreamContext, orgId: string, sessionId: string, start: Cursor | null): Promise<void> {
    const release = await this.places.open(orgId);
    // From here the response is this transport's, not Koa's.
    ctx.respond = false;
    const { res } = ctx;
    // The client may have gone while the place was being taken.
    if (res.destroyed) return release();
    res.on("close", release);
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    res.flushHeaders();
    const client = new SseClient(
      res,
      this.limits.maxBufferedBytes,
      this.limits.keepAliveMs,
      (queued) => this.log.warn("SSE client disconnected: it left too much unread", { sessionId, queued, limit: this.limits.maxBufferedBytes }),
      () => this.remove(client),
    );
    this.add(client);
    res.on("close", () => client.close());
    client.stop = await this.streams.follow(sessionId, start, client);
    if (client.closed) client.stop();
  }

  /** One keep-alive timer for all open streams, not one per client. */
  private add(client: SseClient): void {
    this.clients.add(client);
    sseClients.inc();
    this.keepAlive ??= setInterval(() => this.clients.forEach((c) => c.write(KEEP_ALIVE)), this.limits.keepAliveMs).unref();
  }

  private remove(client: SseClient): void {
    if (this.clients.delete(client)) sseClients.dec();
    if (this.clients.size > 0 || !this.keepAlive) return;
    clearInterval(this.keepAlive);
    this.keepAlive = null;
  }
}
