/**
 * How the size of events bounds what one read of a session's streams holds (docs/decisions.md, "Large
 * events"). An event whose envelope is LARGE_EVENT_BYTES or more is written whole to the durable log
 * only, and named with its size in the log's index of large events (`<sequence>:<bytes>`, scored by the
 * sequence); the live stream gets a stub of it (type, seq, bytes), which its readers fill from the log.
 * So N entries the index does not name hold under N × LARGE_EVENT_BYTES, and a page of the log can be
 * cut before it is read (`pageEnd`).
 */

/** From this size (UTF-8 bytes of the envelope's JSON) an event is large. */
export const LARGE_EVENT_BYTES = 16 * 1024;

/** A page of the log stops before the event that would take it past this; a larger event comes alone. */
export const PAGE_BYTES = 8 * 1024 * 1024;

/** What a page may hold: `pageBytes` in all, counting each event the index does not name as `largeBytes`. */
export interface PageBounds {
  pageBytes: number;
  largeBytes: number;
}

export const PAGE_BOUNDS: PageBounds = { pageBytes: PAGE_BYTES, largeBytes: LARGE_EVENT_BYTES };

/** Room for the sequence the commit splices into a template (Lua numbers print at most 16 digits whole). */
const SEQUENCE_DIGITS = 16;

/** Whether an envelope, split around its sequence as the commit takes it, is large (counted as if its sequence had the most digits). */
export function isLarge(parts: [string, string]): boolean {
  const chars = parts[0].length + parts[1].length + SEQUENCE_DIGITS;
  // A UTF-16 unit is at most 3 UTF-8 bytes: most envelopes are told small without counting.
  if (chars * 3 < LARGE_EVENT_BYTES) return false;
  return Buffer.byteLength(parts[0]) + Buffer.byteLength(parts[1]) + SEQUENCE_DIGITS >= LARGE_EVENT_BYTES;
}

/** A page's planned end: the last sequence it reads, and the bytes it is counted at so far. */
export interface PageEnd {
  end: number;
  spent: number;
}

/**
 * Where a page of the events after `after` ends, before reading it: at most `limit` events, none past
 * `last`, and no more than the budget has room for at the small bound. Every event is counted at
 * `largeBytes`, then each large one (`large`: sequence and bytes, in order) at its size instead; the
 * page ends before the first that would pass `pageBytes`. An event that does not fit an empty page
 * is the page alone, so a page is never empty while there are events.
 */
export function pageEnd(after: number, last: number, limit: number, large: [sequence: number, bytes: number][], bounds: PageBounds): PageEnd {
  const { pageBytes, largeBytes } = bounds;
  let end = Math.min(last, after + limit, after + Math.max(1, Math.floor(pageBytes / largeBytes)));
  let spent = Math.max(0, end - after) * largeBytes;
  for (const [sequence, bytes] of large) {
    if (sequence <= after || sequence > end) continue;
    if (spent - largeBytes + bytes > pageBytes) {
      end = sequence > after + 1 ? sequence - 1 : sequence;
      break;
    }
    spent += bytes - largeBytes;
  }
  return { end, spent };
}

/**
 * How many of a page's events stay once replacement payloads are counted (`payloads`: each event's
 * payload bytes in order, 0 for none): it stops before the first that would pass the budget, unless
 * that is the first event, which then stays alone.
 */
export function keptWithPayloads(spent: number, payloads: number[], bounds: PageBounds): number {
  for (let i = 0; i < payloads.length; i++) {
    const bytes = payloads[i]!;
    if (bytes === 0) continue;
    if (spent + bytes > bounds.pageBytes) return i === 0 ? 1 : i;
    spent += bytes;
  }
  return payloads.length;
}
