/**
 * Server-Sent Events transport for a session's event stream (`src/services/event-stream.ts` decides
 * what is sent): headers, one frame per event, keep-alive comments, and a bound on what a slow reader
 * may leave buffered.
 */
import type { ServerResponse } from "node:http";
import type { Cursor, EventStreams } from "../services/event-stream.js";

/** A client that stops reading is dropped rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export async function streamSession(res: ServerResponse, streams: EventStreams, sessionId: string, start: Cursor | null, keepAliveMs: number): Promise<void> {
  res.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();

  let closed = false;
  let stop: (() => void) | null = null;
  const write = (chunk: string) => {
    if (closed) return;
    res.write(chunk);
    if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
  };
  const keepAlive = setInterval(() => write(": keep-alive\n\n"), keepAliveMs);
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    stop?.();
    if (!res.writableEnded) res.end();
  };
  res.on("close", close);

  stop = await streams.follow(sessionId, start, {
    frame: (e, cursor) => write(`event: ${e.type}\nid: ${cursor}\ndata: ${JSON.stringify(e)}\n\n`),
    close,
    get closed() {
      return closed;
    },
  });
  if (closed) stop();
}
