/**
 * Identifiers: `<prefix>_<time><random>` in Crockford base32. The time part makes ids sort by creation,
 * which list endpoints use as the tie-break after `createdAt`.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

function encodeTime(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/**
 * The last id's time and random digits (base 32). Ids this process makes in one millisecond count up
 * from the first one's random part instead of drawing anew, so they sort in the order they were made
 * (ULID's monotonic rule): a list's tie-break never reorders two resources created in one millisecond.
 */
let lastMs = -1;
const digits = new Uint8Array(16);

function drawDigits(): void {
  const bytes = randomBytes(digits.length);
  for (let i = 0; i < digits.length; i++) digits[i] = bytes[i]! & 31;
}

/** Adds one to the digits; false when they overflowed. */
function incrementDigits(): boolean {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i]! += 1;
      return true;
    }
    digits[i] = 0;
  }
  return false;
}

export type IdPrefix =
  "org" | "key" | "agt" | "ver" | "ses" | "evt" | "turn" | "call" | "req" | "wrk" | "vlt" | "vcr" | "proc" | "aut" | "run" | "dep" | "sec" | "msg" | "whk";

/** An id's part after its prefix: its time, then its random part. */
export function newIdSeed(): string {
  const now = Date.now();
  // A clock that stepped back keeps the last time: the order holds.
  if (now > lastMs) {
    lastMs = now;
    drawDigits();
  } else if (!incrementDigits()) {
    lastMs += 1;
    drawDigits();
  }
  let random = "";
  for (const d of digits) random += ALPHABET[d];
  return `${encodeTime(lastMs)}${random}`;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${newIdSeed()}`;
}

/**
 * The id an Idempotency-Key's record chose for its request (`newIdSeed`, kept with the key): a retry after
 * a first attempt that made the resource and died before answering gets the same id, so it finds the
 * resource instead of making a second. Still time-ordered: the time is the first attempt's.
 */
export function seededId(prefix: IdPrefix, seed: string): string {
  return `${prefix}_${seed}`;
}
