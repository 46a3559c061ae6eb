/**
 * Server-Sent Events for one session. Durable events after the client's position are replayed from
 * the log, then the live stream is tailed through the process's shared reader. Each frame's `id` is an
 * opaque cursor holding the last durable sequence delivered and the live-stream position, so a
 * reconnect with `Last-Event-ID` resumes with no gap and no duplicate, even after the live stream was
 * trimmed: durable events always come from the log, and a hole in the live stream is filled from it.
 */
import type { ServerResponse } from "node:http";
import type { Envelope } from "../domain/events.js";
import type { EventLog, LiveFrame } from "../redis/event-log.js";
import { toLiveFrame } from "../redis/event-log.js";
import { isStreamId, maxStreamId } from "../redis/stream-ids.js";
import type { StreamReader, Subscription } from "../redis/stream-reader.js";
import { validationError } from "./errors.js";

export interface Cursor {
  sequence: number;
  liveId: string | null;
}

const REPLAY_PAGE = 200;
/** A client that stops reading is dropped rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export function encodeCursor(sequence: number, liveId: string): string {
  return Buffer.from(`${sequence}:${liveId}`).toString("base64url");
}

export function decodeCursor(value: string): Cursor {
  const [seq, liveId] = Buffer.from(value, "base64url").toString("utf8").split(":");
  if (!seq || !/^\d{1,15}$/.test(seq) || !liveId || !isStreamId(liveId)) {
    throw validationError("last-event-id: must be an id this stream sent");
  }
  return { sequence: Number(seq), liveId };
}

export interface SseOptions {
  log: EventLog;
  reader: StreamReader;
  keepAliveMs: number;
}

export async function streamSession(res: ServerResponse, sessionId: string, start: Cursor | null, opts: SseOptions): Promise<void> {
  const { log, reader } = opts;
  res.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();

  let closed = false;
  let subscription: Subscription | null = null;
  const keepAlive = setInterval(() => write(": keep-alive\n\n"), opts.keepAliveMs);
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    subscription?.close();
    if (!res.writableEnded) res.end();
  };
  res.on("close", close);

  function write(chunk: string): void {
    if (closed) return;
    res.write(chunk);
    if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
  }
  const frame = (e: Envelope, id: string) => write(`event: ${e.type}\nid: ${id}\ndata: ${JSON.stringify(e)}\n\n`);

  // Where the client is: an explicit cursor, or (no position given) the end of the log right now. The
  // sequence is read before the live position: an event appended in between is then replayed from the log.
  let lastSequence = start ? start.sequence : await log.lastSequence(sessionId);
  let liveFrom = start?.liveId ?? (await log.lastLiveId(sessionId));

  const replay = async (upTo: number) => {
    while (!closed && lastSequence < upTo) {
      const page = await log.historyWithLiveIds(sessionId, lastSequence, Math.min(REPLAY_PAGE, upTo - lastSequence));
      if (page.length === 0) return;
      for (const { envelope, liveId } of page) {
        lastSequence = envelope.sequence;
        liveFrom = maxStreamId(liveFrom, liveId);
        frame(envelope, encodeCursor(lastSequence, liveFrom));
      }
    }
  };

  await replay(Number.MAX_SAFE_INTEGER);
  if (closed) return;

  // Frames are handled one at a time: filling a hole from the log is asynchronous.
  let queue = Promise.resolve();
  const onFrame = async (f: LiveFrame) => {
    if (f.sequence !== undefined) {
      if (f.sequence <= lastSequence) return;
      if (f.sequence > lastSequence + 1) await replay(f.sequence - 1);
      lastSequence = f.sequence;
    }
    liveFrom = maxStreamId(liveFrom, f.liveId);
    frame(f.envelope, encodeCursor(lastSequence, liveFrom));
  };
  subscription = await reader.subscribe(log.keys.sessionLive(sessionId), liveFrom, (entries) => {
    for (const [id, fields] of entries) {
      const f = toLiveFrame(id, fields);
      queue = queue.then(() => onFrame(f)).catch(() => close());
    }
  });
  if (closed) subscription.close();
}
