/**
 * One session's live frames for every subscriber of this process. The feed reads the session's live
 * stream once (through the process's shared reader), fills a hole from the log once, and turns each
 * frame into its wire form once (cursor and serialization included, by the transport's encoder); the
 * subscribers in step with the feed are handed that same value and nothing else is done per subscriber.
 * A subscriber not yet in step (replaying, or resuming from another position) is a follower
 * (`feed-follower.ts`) until it is.
 */
import type { LiveEnvelope } from "../sessions/domain/events.js";
import type { Logger } from "../log.js";
import { type EventLog } from "../sessions/redis/event-log.js";
import { toLiveFrame, type LiveFrame } from "../sessions/redis/log-entries.js";
import type { LiveStream } from "./redis/live-stream.js";
import { maxStreamId } from "../redis/stream-ids.js";
import type { StreamEntry, StreamReader, Subscription } from "./redis/stream-reader.js";
import { encodeCursor, sessionTag } from "./event-cursor.js";

/** Turns a frame and its cursor into what subscribers receive (for SSE, the frame's bytes). */
export type FrameEncoder<W> = (envelope: LiveEnvelope, cursor: string) => W;

/** Where one subscriber's frames go; `close` ends it (its feed failed). */
export interface FrameSink<W> {
  write(wire: W): void;
  close(): void;
  readonly closed: boolean;
  /**
   * Null when the subscriber may be written to now; else a promise that settles once it may (it has
   * read what was queued, or it is gone). Frames read for it alone (a replay) wait for it; shared ones never do.
   */
  drained(): Promise<void> | null;
}

/** A frame as the feed passed it, with the feed's position after it (its cursor's). */
export interface FeedFrame<W> {
  envelope: LiveEnvelope;
  /** The durable sequence; undefined for live-only frames. */
  sequence: number | undefined;
  lastSequence: number;
  liveId: string;
  wire: W;
}

/** What feeds read and how they encode, and where they say they failed; one per process. */
export interface FeedSources<W> {
  log: EventLog;
  logger: Logger;
  live: LiveStream;
  reader: () => StreamReader;
  encode: FrameEncoder<W>;
}

/** A subscriber on its way into the feed: it is offered every frame until it is in step. */
export interface Follower<W> {
  readonly sink: FrameSink<W>;
  offer(frame: FeedFrame<W>): void;
}

export class SessionFeed<W> {
  readonly tag: string;
  /** The position of the last frame passed on: a subscriber at it is in step. */
  private seq = 0;
  private live = "0-0";
  /** Settles once the feed knows its position and reads the live stream. */
  readonly started: Promise<void>;
  private readonly members = new Set<FrameSink<W>>();
  private readonly followers = new Set<Follower<W>>();
  private readonly pending: LiveFrame[] = [];
  private draining = false;
  private subscription: Subscription | null = null;
  private closed = false;

  constructor(
    readonly sessionId: string,
    private readonly sources: FeedSources<W>,
    private readonly onClose: () => void,
  ) {
    this.tag = sessionTag(sessionId);
    this.started = this.start();
    this.started.catch((err: unknown) => this.fail(err));
  }

  get lastSequence(): number {
    return this.seq;
  }

  get liveId(): string {
    return this.live;
  }

  get subscribers(): number {
    return this.members.size + this.followers.size;
  }

  get inStepCount(): number {
    return this.members.size;
  }

  cursor(lastSequence: number, liveId: string): string {
    return encodeCursor(this.tag, lastSequence, liveId);
  }

  admit(follower: Follower<W>): void {
    this.followers.add(follower);
  }

  /** The follower is at the feed's position: from now on it gets the shared wire form. */
  inStep(follower: Follower<W>): void {
    if (!this.followers.delete(follower)) return;
    this.members.add(follower.sink);
  }

  leave(follower: Follower<W>): void {
    this.followers.delete(follower);
    this.members.delete(follower.sink);
    if (this.subscribers === 0) this.close();
  }

  private async start(): Promise<void> {
    const { log, live } = this.sources;
    // The sequence is read before the live position; events appended in between are then read from
    // the log here, so the position is one a subscriber can be at.
    this.seq = await log.lastSequence(this.sessionId);
    this.live = await live.lastId(this.sessionId);
    for await (const e of log.events(this.sessionId, this.seq)) {
      this.seq = e.envelope.sequence;
      this.live = maxStreamId(this.live, e.liveId);
    }
    const subscription = await live.follow(this.sources.reader(), this.sessionId, this.live, (entries) => this.receive(entries));
    if (this.closed) subscription.close();
    else this.subscription = subscription;
  }

  private receive(entries: StreamEntry[]): void {
    for (const [id, fields] of entries) this.pending.push(toLiveFrame(id, fields));
    if (!this.draining) void this.drain();
  }

  /** Frames in order. Filling a hole from the log is the only wait, so a frame is usually passed on at once. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let f = this.pending.shift(); f && !this.closed; f = this.pending.shift()) {
        if (f.sequence !== undefined && f.sequence <= this.seq) continue;
        // A large event's stub: the event, and whatever the live stream no longer holds before it, from
        // the log; with the stubs right behind it, in one read.
        if (f.envelope === null) {
          let upTo = f.sequence;
          for (let next = this.pending[0]; next?.envelope === null; next = this.pending[0]) upTo = this.pending.shift()!.sequence!;
          await this.fill(upTo);
          continue;
        }
        if (f.sequence !== undefined && f.sequence > this.seq + 1) await this.fill(f.sequence - 1);
        // A patched live-only frame gets its payload from the overlay; gone with a deleted session.
        const envelope = f.replacementOf === undefined ? f.envelope : await this.sources.log.completed(this.sessionId, f);
        if (envelope && !this.closed) this.pass(envelope, f.sequence, f.liveId);
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.draining = false;
    }
  }

  /** Durable events the live stream no longer holds (it was trimmed) or holds a stub of, from the log. */
  private async fill(upTo: number): Promise<void> {
    for await (const { envelope, liveId } of this.sources.log.events(this.sessionId, this.seq, upTo)) {
      if (this.closed) return;
      this.pass(envelope, envelope.sequence, liveId);
    }
  }

  /** The one place a frame is encoded; members are only written to. */
  private pass(envelope: LiveEnvelope, sequence: number | undefined, liveId: string): void {
    if (sequence !== undefined) this.seq = sequence;
    this.live = maxStreamId(this.live, liveId);
    const wire = this.sources.encode(envelope, this.cursor(this.seq, this.live));
    for (const sink of this.members) sink.write(wire);
    if (this.followers.size === 0) return;
    const frame: FeedFrame<W> = { envelope, sequence, lastSequence: this.seq, liveId: this.live, wire };
    for (const follower of this.followers) follower.offer(frame);
  }

  /** A frame could not be read: every subscriber is ended (clients reconnect and resume from the log). */
  private fail(err: unknown): void {
    this.sources.logger.warn("a session's event feed failed: its streams end, and their clients resume", { sessionId: this.sessionId, err });
    const sinks = [...this.members, ...[...this.followers].map((f) => f.sink)];
    this.close();
    for (const sink of sinks) sink.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.subscription?.close();
    this.members.clear();
    this.followers.clear();
    this.onClose();
  }
}
