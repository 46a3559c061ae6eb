/**
 * Identifiers: `<prefix>_<time><random>` in Crockford base32. The time part makes ids sort by creation,
 * which list endpoints use as the tie-break after `createdAt`.
 */
import { createHash, randomBytes } from "node:crypto";

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

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${encodeTime(Date.now())}${encodeRandom(randomBytes(16))}`;
}

/**
 * An id derived from `seed` (an Idempotency-Key's hash): the same request retried gets the same id, so a
 * create whose first attempt made the resource before its answer was lost finds it instead of making a
 * second. No time part: such ids sort among others by `createdAt` alone.
 */
export function derivedId(prefix: IdPrefix, seed: string): string {
  return `${prefix}_${encodeRandom(createHash("sha256").update(`${prefix}\n${seed}`).digest().subarray(0, 26))}`;
}

