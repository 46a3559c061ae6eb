/**
 * An Idempotency-Key committed with a handler's own write: a send's commit (`append-events-11.lua`)
 * marks it in the session's overlay hash, with the request's fingerprint and which events answered it,
 * so a retry after a lost answer (its first attempt's process died, the key's lease lapsed) commits
 * nothing again and is answered with those events.
 */
import { createHash, createHmac } from "node:crypto";

/** The key (hashed with its organization) and the request's fingerprint, as handlers receive them. */
export interface Once {
  key: string;
  fingerprint: string;
  /** The id seed kept with the key: a create names its resource `seededId(prefix, seed)` (`ids.ts`). */
  seed: string;
  /** An earlier attempt under the key died unsettled: what it made may exist already. */
  retaken: boolean;
}

/** SHA-256 in base64url: what names a key's record and mark. */
export const digest = (text: string) => createHash("sha256").update(text).digest("base64url");

/**
 * A request's fingerprint (its method, path and body): an HMAC keyed by its organization and
 * Idempotency-Key. Records and marks keep it for a day or more; a plain hash would let whoever reads
 * Redis test guesses of a body's secret (a credential's token) against it, where this needs the key too.
 */
export const fingerprintOf = (orgId: string, key: string, request: string) => createHmac("sha256", `${orgId}\n${key}`).update(request).digest("base64url");

export const onceOf = (orgId: string, key: string, request: string, begun: { seed: string; retaken: boolean }): Once => ({
  key: digest(`${orgId}\n${key}`).slice(0, 22),
  fingerprint: fingerprintOf(orgId, key, request).slice(0, 22),
  seed: begun.seed,
  retaken: begun.retaken,
});

/** Whether a mark's fingerprint is the request's. */
export const sameRequest = (once: Once, marked: string) => marked === once.fingerprint;

/** The overlay field under which a commit marks an Idempotency-Key (`Once.key`). */
export const onceField = (key: string) => `once:${key}`;

/** An Idempotency-Key as a commit marks it: the overlay field that names it, and the request's fingerprint. */
export interface OnceMark {
  field: string;
  fingerprint: string;
  /** Which of the plan's durable drafts answer the request, by their place among them. */
  answers: number[];
}

/** What a commit found in place of its own: the first commit under the same Idempotency-Key. */
export interface DoneBefore {
  fingerprint: string;
  /** The sequences of the events that answered it. */
  sequences: number[];
}

/** Reads a mark's value: "<fingerprint> <places> <first sequence>". */
export function doneBefore(mark: string): DoneBefore {
  const [fingerprint, places, first] = mark.split(" ");
  return { fingerprint: fingerprint!, sequences: places ? places.split(",").map((p) => Number(first) + Number(p)) : [] };
}
