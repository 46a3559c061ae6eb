/**
 * The Idempotency-Key as a handler receives it, to make its own write carry the key: a send marks it in
 * the session's commit (`once-marks.ts`), a create names its resource after the key's id seed
 * (`kept-creates.ts`). Either way a retry whose first attempt wrote and then died finds that write.
 */
import { digest, fingerprintOf } from "./fingerprint.js";

export interface Once {
  /** The key, hashed with its organization: what a send's mark is named by. */
  key: string;
  fingerprint: string;
  /** The id seed kept with the key: a create names its resource `seededId(prefix, seed)` (`ids.ts`). */
  seed: string;
  /** An earlier attempt under the key died unsettled: what it made may exist already. */
  retaken: boolean;
}

/** The handler's `Once` for a request (its method, path and body) that took `key` with this seed. */
export const onceOf = (orgId: string, key: string, request: string, begun: { seed: string; retaken: boolean }): Once => ({
  key: digest(`${orgId}\n${key}`).slice(0, 22),
  fingerprint: fingerprintOf(orgId, key, request).slice(0, 22),
  seed: begun.seed,
  retaken: begun.retaken,
});
