/**
 * How the size of events bounds what one read of a session's streams holds (docs/decisions/sessions-and-events.md, "Large
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

/**
 * What a page may hold: `pageBytes` in all, counting each event the index does not name as
 * `largeBytes`, and each event `overlayBytes` more for what the overlay merges in (a status with its
 * time, a turn id).
 */
export interface PageBounds {
  pageBytes: number;
  largeBytes: number;
  overlayBytes: number;
}

export const PAGE_BOUNDS: PageBounds = { pageBytes: PAGE_BYTES, largeBytes: LARGE_EVENT_BYTES, overlayBytes: 128 };

/** Room for the sequence the commit splices into a template (Lua numbers print at most 16 digits whole). */
const SEQUENCE_DIGITS = 16;

/** Whether an envelope, split around its sequence as the commit takes it, is large (counted as if its sequence had the most digits). */
export function isLarge(parts: [string, string]): boolean {
  const chars = parts[0].length + parts[1].length + SEQUENCE_DIGITS;
  // A UTF-16 unit is at most 3 UTF-8 bytes: most envelopes are told small without counting.
  if (chars * 3 < LARGE_EVENT_BYTES) return false;
  return Buffer.byteLength(parts[0]) + Buffer.byteLength(parts[1]) + SEQUENCE_DIGITS >= LARGE_EVENT_BYTES;
}

/** A page's planned end: the last sequence it reads, and the bytes its events are counted at. */
export interface PageEnd {
  end: number;
  spent: number;
}

/**
 * Where a page of the events after `after` ends, before reading it: at most `limit` events, none past
 * `last`, and as many as fit in `pageBytes`, counting each event the index does not name at
 * `largeBytes` and each large one (`large`: sequence and bytes, in order) at its size, each with
 * `overlayBytes` more. An event that does not fit an empty page is the page alone, so a page is never
 * empty while there are events.
 */
export function pageEnd(after: number, last: number, limit: number, large: [sequence: number, bytes: number][], bounds: PageBounds): PageEnd {
  const { pageBytes, largeBytes, overlayBytes } = bounds;
  const cap = Math.min(last, after + limit);
  if (cap <= after) return { end: after, spent: 0 };
  const unnamed = largeBytes + overlayBytes;
  let spent = 0;
  let at = after;
  /** The unnamed events from `at` up to `to` that fit; false when the page ends among them. */
  const fitUnnamed = (to: number): boolean => {
    const room = Math.floor((pageBytes - spent) / unnamed);
    if (to - at <= room) {
      spent += (to - at) * unnamed;
      at = to;
      return true;
    }
    spent += Math.max(0, room) * unnamed;
    at += Math.max(0, room);
    return false;
  };
  for (const [sequence, bytes] of large) {
    if (sequence <= after || sequence > cap) continue;
    if (!fitUnnamed(sequence - 1)) return { end: Math.max(at, after + 1), spent: Math.max(spent, unnamed) };
    const cost = bytes + overlayBytes;
    if (spent + cost > pageBytes) return at > after ? { end: at, spent } : { end: sequence, spent: cost };
    spent += cost;
    at = sequence;
  }
  fitUnnamed(cap);
  return at > after ? { end: at, spent } : { end: after + 1, spent: unnamed };
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
