/**
 * How the size of events bounds what one read of a session's streams holds (docs/decisions.md, "Large
 * events"). An event whose envelope is LARGE_EVENT_BYTES or more is written whole to the durable log
 * only, and named with its size in the log's index of large events (`<sequence>:<bytes>`, scored by the
 * sequence); the live stream gets a stub of it (type, seq, bytes), which its readers fill from the log.
 * So N entries the index does not name hold under N × LARGE_EVENT_BYTES, and a page of the log is cut
 * before the index says it would pass PAGE_BYTES (`read-log-4.lua`).
 */

/** From this size (UTF-8 bytes of the envelope's JSON) an event is large. */
export const LARGE_EVENT_BYTES = 16 * 1024;

/** A page of the log stops before the event that would take it past this; a larger event comes alone, or after small ones only. */
export const PAGE_BYTES = 8 * 1024 * 1024;

/** Room for the sequence the commit splices into a template (Lua numbers print at most 16 digits whole). */
const SEQUENCE_DIGITS = 16;

/** Whether an envelope, split around its sequence as the commit takes it, is large (counted as if its sequence had the most digits). */
export function isLarge(parts: [string, string]): boolean {
  const chars = parts[0].length + parts[1].length + SEQUENCE_DIGITS;
  // A UTF-16 unit is at most 3 UTF-8 bytes: most envelopes are told small without counting.
  if (chars * 3 < LARGE_EVENT_BYTES) return false;
  return Buffer.byteLength(parts[0]) + Buffer.byteLength(parts[1]) + SEQUENCE_DIGITS >= LARGE_EVENT_BYTES;
}
