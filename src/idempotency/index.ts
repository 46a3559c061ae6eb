/**
 * Idempotency: a `POST` under an `Idempotency-Key` happens at most once, and its retries get its answer.
 * This file is the module's one surface (the layering check keeps callers to it). Three jobs, one key:
 *
 * - **Request replay** (`request-replay.ts`, its records in `redis/records.ts`): the front door. The
 *   first request under a key takes it with a lease; the key's record keeps the answer for 24 h and
 *   replays it, refuses another request under the key (`422`) and a concurrent one (`409`).
 * - **Once-marks** (`once-marks.ts`): a send's commit carries the key. The record cannot tell a first
 *   attempt that died before its write from one that died after it; the mark, written in the same
 *   atomic step as the send's append, can, so a retry appends nothing again and is answered from it.
 *   Marks live with their session.
 * - **Kept creates** (`kept-creates.ts`): a create's resource carries the key, as an id derived from the
 *   seed the key's record keeps, so a retry finds what a dead first attempt made instead of making it
 *   twice.
 *
 * Once-marks and kept creates are one idea, a handler's own write carrying the key, in two stores: a
 * session's append is a script that checks and writes the mark in one atomic step; a MongoDB insert
 * refuses a duplicate id. A handler receives the key as a `Once` (`once.ts`), for either. Fingerprints
 * (`fingerprint.ts`) are shared by records and marks. Decisions: docs/decisions/idempotency.md.
 */
export { idempotent, IDEMPOTENCY_DESCRIPTION, IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_SCHEMA, type KeyedRequest } from "./request-replay.js";
export { IdempotencyKeys } from "./redis/records.js";
export { onceOf, type Once } from "./once.js";
export { doneBefore, markValue, onceField, sameRequest, type DoneBefore } from "./once-marks.js";
export { createKept, keptId, type Kept, type KeptId } from "./kept-creates.js";
