/**
 * Once-marks: an Idempotency-Key committed with a send's own write. The commit (`append-events-11.lua`)
 * writes the mark in the session's overlay hash in the same step as the append, with the request's
 * fingerprint and which events answered it, so a retry after a lost answer (its first attempt's process
 * died, the key's lease lapsed) commits nothing again and is answered with those events. The append
 * script treats a mark as an opaque field and value; its format is this file's.
 */
import type { Once } from "./once.js";

/** The overlay field under which a commit marks the request's Idempotency-Key. */
export const onceField = (once: Once) => `once:${once.key}`;

/**
 * What a commit writes under the field, but for the first sequence the script appends to it: the
 * request's fingerprint and the places, among the commit's durable drafts, of those that answer it.
 */
export const markValue = (once: Once, places: number[]) => `${once.fingerprint} ${places.join(",")}`;

/** What a commit found in place of its own: the first commit under the same Idempotency-Key. */
export interface DoneBefore {
  fingerprint: string;
  /** The sequences of the events that answered it. */
  sequences: number[];
}

/** Reads a mark as the commit left it: "<fingerprint> <places> <first sequence>". */
export function doneBefore(mark: string): DoneBefore {
  const [fingerprint, places, first] = mark.split(" ");
  return { fingerprint: fingerprint!, sequences: places ? places.split(",").map((p) => Number(first) + Number(p)) : [] };
}

/** Whether the first commit was the same request (another one under the key is refused). */
export const sameRequest = (once: Once, before: DoneBefore) => before.fingerprint === once.fingerprint;
