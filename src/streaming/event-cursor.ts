/**
 * The opaque cursor of an SSE frame (`id:`): base64url of `<session tag>:<last durable sequence>:<live
 * id>`. The tag, a short hash of the session id, binds a cursor to the stream that issued it; a feed
 * computes it once and every frame's cursor from it.
 */
import { createHash } from "node:crypto";
import { validationError } from "../errors.js";
import { isStreamId } from "../redis/stream-ids.js";

/** A position in a session's stream: the last durable sequence delivered and the live-stream id. */
export interface Cursor {
  sequence: number;
  liveId: string | null;
}

/** A short, stable tag of the session a cursor belongs to. */
export function sessionTag(sessionId: string): string {
  return createHash("sha256").update(sessionId).digest("base64url").slice(0, 12);
}

export function encodeCursor(tag: string, sequence: number, liveId: string): string {
  return Buffer.from(`${tag}:${sequence}:${liveId}`).toString("base64url");
}

/** The position a `Last-Event-ID` names, if this session's stream issued it. */
export function decodeCursor(sessionId: string, value: string): Cursor {
  const [tag, seq, liveId, ...rest] = Buffer.from(value, "base64url").toString("utf8").split(":");
  if (tag !== sessionTag(sessionId) || rest.length > 0 || !seq || !/^\d{1,15}$/.test(seq) || !liveId || !isStreamId(liveId)) {
    throw validationError("last-event-id: must be an id this session's stream sent");
  }
  return { sequence: Number(seq), liveId };
}
