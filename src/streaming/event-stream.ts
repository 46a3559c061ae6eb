/**
 * A session's event stream, transport aside: durable events after the client's position are replayed
 * from the log, then the live stream is followed. Every frame carries an opaque cursor
 * (`event-cursor.ts`) holding the last durable sequence delivered and the live position, so a reconnect
 * resumes with no gap and no duplicate even after the live stream was trimmed (durable events always
 * come from the log, and a hole in the live stream is filled from it). All clients of a session in this
 * process share one feed (`session-feed.ts`), which encodes each live frame once for all of them.
 */
import type { Logger } from "../log.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { LiveStream } from "./redis/live-stream.js";
import type { StreamReader } from "./redis/stream-reader.js";
import type { Cursor } from "./event-cursor.js";
import { FeedFollower } from "./feed-follower.js";
import { SessionFeed, type FeedSources, type FrameEncoder, type FrameSink } from "./session-feed.js";

export class EventStreams<W> {
  private readonly sources: FeedSources<W>;
  private readonly feeds = new Map<string, SessionFeed<W>>();

  constructor(log: EventLog, live: LiveStream, reader: () => StreamReader, encode: FrameEncoder<W>, logger: Logger) {
    this.sources = { log, live, reader, encode, logger };
  }

  /** Clients of the session's stream in this process, and how many of them are in step with its feed. */
  subscribers(sessionId: string): number {
    return this.feeds.get(sessionId)?.subscribers ?? 0;
  }

  inStep(sessionId: string): number {
    return this.feeds.get(sessionId)?.inStepCount ?? 0;
  }

  /** Replays, then follows; returns the function that stops following. */
  async follow(sessionId: string, start: Cursor | null, sink: FrameSink<W>): Promise<() => void> {
    const feed = this.feeds.get(sessionId) ?? this.open(sessionId);
    const follower = new FeedFollower(sink, feed, this.sources);
    feed.admit(follower);
    const stop = () => feed.leave(follower);
    try {
      await feed.started;
      await follower.catchUp(start);
    } catch (err) {
      stop();
      throw err;
    }
    return stop;
  }

  private open(sessionId: string): SessionFeed<W> {
    const feed: SessionFeed<W> = new SessionFeed(sessionId, this.sources, () => {
      if (this.feeds.get(sessionId) === feed) this.feeds.delete(sessionId);
    });
    this.feeds.set(sessionId, feed);
    return feed;
  }
}
