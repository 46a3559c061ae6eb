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

function encodeRandom(bytes: Buffer): string {
  let out = "";
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

export type IdPrefix = "org" | "key" | "agt" | "ver" | "ses" | "evt" | "turn" | "call" | "req" | "wrk" | "vlt" | "vcr" | "proc" | "aut" | "run" | "dep" | "sec" | "msg" | "whk";

/** An id's part after its prefix: its time, then its random part. */
export function newIdSeed(): string {
  return `${encodeTime(Date.now())}${encodeRandom(randomBytes(16))}`;
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
