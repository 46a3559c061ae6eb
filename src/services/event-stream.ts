/**
 * A session's event stream, transport aside: durable events after the client's position are replayed
 * from the log, then the live stream is followed through the process's shared reader. Each frame carries
 * an opaque cursor holding the session it belongs to, the last durable sequence delivered and the live
 * position, so a reconnect resumes with no gap and no duplicate even after the live stream was trimmed
 * (durable events always come from the log, and a hole in the live stream is filled from it), and a
 * cursor of another session's stream is refused.
 */
import { createHash } from "node:crypto";
import type { Envelope } from "../domain/events.js";
import { validationError } from "../errors.js";
import { toLiveFrame, type EventLog, type LiveFrame } from "../redis/event-log.js";
import type { LiveStream } from "../redis/live-stream.js";
import { isStreamId, maxStreamId } from "../redis/stream-ids.js";
import type { StreamReader } from "../redis/stream-reader.js";

export interface Cursor {
  sequence: number;
  liveId: string | null;
}

/** Where frames go; `closed` tells the stream to stop, `close` ends it (a frame could not be read). */
export interface FrameSink {
  frame(envelope: Envelope, cursor: string): void;
  close(): void;
  readonly closed: boolean;
}

const REPLAY_PAGE = 200;

/** A short, stable tag of the session a cursor belongs to. */
function sessionTag(sessionId: string): string {
  return createHash("sha256").update(sessionId).digest("base64url").slice(0, 12);
}

export function encodeCursor(sessionId: string, sequence: number, liveId: string): string {
  return Buffer.from(`${sessionTag(sessionId)}:${sequence}:${liveId}`).toString("base64url");
}

/** The position a `Last-Event-ID` names, if this session's stream issued it. */
export function decodeCursor(sessionId: string, value: string): Cursor {
  const [tag, seq, liveId, ...rest] = Buffer.from(value, "base64url").toString("utf8").split(":");
  if (tag !== sessionTag(sessionId) || rest.length > 0 || !seq || !/^\d{1,15}$/.test(seq) || !liveId || !isStreamId(liveId)) {
    throw validationError("last-event-id: must be an id this session's stream sent");
  }
  return { sequence: Number(seq), liveId };
}

export class EventStreams {
  constructor(
    private readonly log: EventLog,
    private readonly live: LiveStream,
    private readonly reader: () => StreamReader,
  ) {}

  /** Replays, then follows; returns the function that stops following. */
  async follow(sessionId: string, start: Cursor | null, sink: FrameSink): Promise<() => void> {
    const { log } = this;
    // Where the client is: an explicit cursor, or (no position given) the end of the log right now. The
    // sequence is read before the live position: an event appended in between is then replayed from the log.
    let lastSequence = start ? start.sequence : await log.lastSequence(sessionId);
    let liveFrom = start?.liveId ?? (await this.live.lastId(sessionId));
    const send = (e: Envelope) => sink.frame(e, encodeCursor(sessionId, lastSequence, liveFrom));

    const replay = async (upTo: number) => {
      while (!sink.closed && lastSequence < upTo) {
        const page = await log.historyWithLiveIds(sessionId, lastSequence, Math.min(REPLAY_PAGE, upTo - lastSequence));
        if (page.length === 0) return;
        for (const { envelope, liveId } of page) {
          lastSequence = envelope.sequence;
          liveFrom = maxStreamId(liveFrom, liveId);
          send(envelope);
        }
      }
    };

    await replay(Number.MAX_SAFE_INTEGER);
    if (sink.closed) return () => undefined;

    // Frames are handled one at a time: filling a hole from the log is asynchronous.
    let queue = Promise.resolve();
    const onFrame = async (f: LiveFrame) => {
      if (f.sequence !== undefined) {
        if (f.sequence <= lastSequence) return;
        if (f.sequence > lastSequence + 1) await replay(f.sequence - 1);
        lastSequence = f.sequence;
      }
      liveFrom = maxStreamId(liveFrom, f.liveId);
      send(f.envelope);
    };
    const subscription = await this.live.follow(this.reader(), sessionId, liveFrom, (entries) => {
      for (const [id, fields] of entries) {
        const f = toLiveFrame(id, fields);
        queue = queue.then(() => onFrame(f)).catch(() => sink.close());
      }
    });
    return () => subscription.close();
  }
}
