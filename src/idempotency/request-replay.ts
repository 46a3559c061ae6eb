/**
 * Request replay: `Idempotency-Key` on the POSTs of both interfaces, with Stripe's semantics. The first
 * request under a key runs; the same request again within 24 h gets the first answer (status and body,
 * with `Idempotent-Replayed: true`) and does nothing (no second message, no second allowance point);
 * another request under the same key is refused (`422 idempotency_error`); a retry while the first still
 * runs is refused (`409 conflict`). Only a success is kept: a request that failed did nothing to repeat,
 * so its key is freed and a retry runs again.
 */
import { AppError, idempotencyMismatch, validationError } from "../errors.js";
import { digest, fingerprintOf } from "./fingerprint.js";
import { onceOf, type Once } from "./once.js";
import type { IdempotencyKeys } from "./redis/records.js";

/** A handler's answer (`route.ts`'s RouteReply): undefined when it wrote the response itself. */
type Reply = { body: unknown; status?: number; headers?: Record<string, string>; kept?: unknown } | undefined;

/** A request that carries an Idempotency-Key: the header's value, and what its fingerprint is made of. */
export interface KeyedRequest {
  key: string;
  method: string;
  path: string;
  body: unknown;
}

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const IDEMPOTENCY_DESCRIPTION =
  "Makes the request safe to retry: the same request with the same key within 24 h gets the first answer (with `Idempotent-Replayed: true`) and does nothing again; 1–255 printable ASCII characters, unique per request (a UUID).";

/** The key's form, as the document states it and the header is checked against. */
export const IDEMPOTENCY_KEY_SCHEMA = { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" } as const;
const KEY = new RegExp(IDEMPOTENCY_KEY_SCHEMA.pattern);
/** A request that dies while running lets a retry take its key after this (no request of this interface runs longer). */
const LEASE_MS = 60_000;
const KEPT_MS = 24 * 60 * 60 * 1000;
/** Answers larger than this are not kept (a send of large attachments): their status alone is. */
const MAX_KEPT_BYTES = 1024 * 1024;

/** Runs `run` under the request's Idempotency-Key, handing it the key as its own write may carry it (`Once`). */
export async function idempotent(
  req: KeyedRequest,
  orgId: string,
  keys: IdempotencyKeys,
  successStatus: number,
  run: (once: Once) => Promise<Reply>,
): Promise<Reply> {
  const { key } = req;
  if (!KEY.test(key)) throw validationError(`${IDEMPOTENCY_HEADER}: must be 1 to 255 printable ASCII characters`);
  const request = `${req.method} ${req.path}\n${JSON.stringify(req.body ?? null)}`;
  const record = { orgId, keyHash: digest(key) };
  const begun = await keys.begin(record, fingerprintOf(orgId, key, request), LEASE_MS, KEPT_MS);
  switch (begun.kind) {
    case "mismatch":
      throw idempotencyMismatch();
    case "running":
      throw new AppError("conflict", `a request with this ${IDEMPOTENCY_HEADER} is still running; retry once it has finished`);
    case "done":
      if (begun.body === null)
        throw new AppError("conflict", `the request with this ${IDEMPOTENCY_HEADER} succeeded (${begun.status}); its answer was too large to keep`);
      return { status: begun.status, body: JSON.parse(begun.body) as unknown, headers: { "Idempotent-Replayed": "true" } };
  }
  let reply: Reply;
  try {
    reply = await run(onceOf(orgId, key, request, begun));
  } catch (err) {
    await keys.free(record, begun.token);
    throw err;
  }
  const status = reply?.status ?? successStatus;
  if (!reply || status >= 300) {
    await keys.free(record, begun.token);
    return reply;
  }
  // A secret shown once is never kept: the replay answers without it.
  const body = JSON.stringify(reply.kept ?? reply.body);
  await keys.keep(record, begun.token, status, Buffer.byteLength(body) <= MAX_KEPT_BYTES ? body : null, KEPT_MS);
  return reply;
}
