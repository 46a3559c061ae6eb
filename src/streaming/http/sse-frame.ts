/**
 * The bytes of an SSE frame: `event:` the type, `id:` the cursor, `data:` the envelope as JSON (which
 * never holds a raw newline). A session's feed encodes each frame once and sends every client these
 * same bytes.
 */
import type { LiveEnvelope } from "../../sessions/domain/events.js";

export function encodeSseFrame(envelope: LiveEnvelope, cursor: string): Buffer {
  return Buffer.from(`event: ${envelope.type}\nid: ${cursor}\ndata: ${JSON.stringify(envelope)}\n\n`);
}

export const KEEP_ALIVE = Buffer.from(": keep-alive\n\n");
