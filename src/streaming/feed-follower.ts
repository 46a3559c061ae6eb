/**
 * A subscriber on its way into its session's feed. Registered with the feed first (frames the feed
 * passes from then on are held), it replays the durable events after its position from the log, reads
 * back the live-only frames the feed passed before it registered, then takes the held frames; once its
 * position is the feed's it becomes a member and gets the feed's shared wire form. Until then frames
 * are encoded for it alone, with its own cursor (a client that resumes ahead of the log, say, keeps
 * its own position until the feed reaches it).
 */
import type { LiveEnvelope } from "../sessions/domain/events.js";
import { toLiveFrame } from "../sessions/redis/log-entries.js";
import { compareStreamIds, maxStreamId } from "../redis/stream-ids.js";
import type { Cursor } from "./event-cursor.js";
import type { FeedFrame, FeedSources, FrameSink, Follower, SessionFeed } from "./session-feed.js";

const LIVE_PAGE = 500;

export class FeedFollower<W> implements Follower<W> {
  private lastSequence = 0;
  private liveId = "0-0";
  /** Frames the feed passed while this follower caught up; null once it has. */
  private held: FeedFrame<W>[] | null = [];

  constructor(
    readonly sink: FrameSink<W>,
    private readonly feed: SessionFeed<W>,
    private readonly sources: FeedSources<W>,
  ) {}

  /** Catches up from `start` (null: the end of the log now) to the feed, then follows it. */
  async catchUp(start: Cursor | null): Promise<void> {
    const { log, live } = this.sources;
    const { sessionId } = this.feed;
    // The sequence is read before the live position: an event appended in between is replayed from the log.
    this.lastSequence = start ? start.sequence : await log.lastSequence(sessionId);
    this.liveId = start?.liveId ?? (await live.lastId(sessionId));
    for await (const { envelope, liveId } of log.events(sessionId, this.lastSequence)) {
      const reading = this.sink.drained();
      if (reading) await reading;
      if (this.sink.closed) return;
      this.take(envelope, envelope.sequence, liveId);
    }
    // Durable frames up to here are all replayed; the live-only ones the feed passed before this
    // follower registered are read back, up to the first frame held.
    for (let after = this.liveId; ;) {
      if (this.sink.closed) return;
      const first = this.held![0];
      const end = first ? `(${first.liveId}` : this.feed.liveId;
      if (compareStreamIds(after, first ? first.liveId : end) >= 0) break;
      const page = await live.range(sessionId, after, end, LIVE_PAGE);
      for (const [id, fields] of page) {
        const f = toLiveFrame(id, fields);
        if (!f.envelope || f.sequence !== undefined) continue;
        const reading = this.sink.drained();
        if (reading) await reading;
        const envelope = await log.completed(sessionId, f);
        if (this.sink.closed) return;
        if (envelope) this.take(envelope, undefined, f.liveId);
      }
      if (page.length < LIVE_PAGE) break;
      after = page[page.length - 1]![0];
    }
    const held = this.held!;
    this.held = null;
    for (const frame of held) this.deliver(frame);
    this.joinIfInStep();
  }

  offer(frame: FeedFrame<W>): void {
    if (this.held) {
      this.held.push(frame);
      return;
    }
    this.deliver(frame);
    this.joinIfInStep();
  }

  /** A frame of the feed: skipped if already delivered; the shared wire form when the cursors agree. */
  private deliver(frame: FeedFrame<W>): void {
    const seen = frame.sequence !== undefined ? frame.sequence <= this.lastSequence : compareStreamIds(frame.liveId, this.liveId) <= 0;
    if (seen) return;
    this.advance(frame.sequence, frame.liveId);
    if (this.lastSequence === frame.lastSequence && this.liveId === frame.liveId) this.sink.write(frame.wire);
    else this.sink.write(this.encode(frame.envelope));
  }

  /** A frame read for this follower alone. */
  private take(envelope: LiveEnvelope, sequence: number | undefined, liveId: string): void {
    this.advance(sequence, liveId);
    this.sink.write(this.encode(envelope));
  }

  private advance(sequence: number | undefined, liveId: string): void {
    if (sequence !== undefined) this.lastSequence = sequence;
    this.liveId = maxStreamId(this.liveId, liveId);
  }

  private encode(envelope: LiveEnvelope): W {
    return this.sources.encode(envelope, this.feed.cursor(this.lastSequence, this.liveId));
  }

  private joinIfInStep(): void {
    if (this.lastSequence === this.feed.lastSequence && this.liveId === this.feed.liveId) this.feed.inStep(this);
  }
}
