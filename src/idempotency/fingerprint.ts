/** How a request under an Idempotency-Key is named and recognised, by its record and by its once-marks alike. */
import { createHash, createHmac } from "node:crypto";

/** SHA-256 in base64url: what names a key's record (with its organization, a send's mark). */
export const digest = (text: string) => createHash("sha256").update(text).digest("base64url");

/**
 * A request's fingerprint (its method, path and body): an HMAC keyed by its organization and
 * Idempotency-Key. Records and marks keep it for a day or more; a plain hash would let whoever reads
 * Redis test guesses of a body's secret (a credential's token) against it, where this needs the key too.
 */
export const fingerprintOf = (orgId: string, key: string, request: string) => createHmac("sha256", `${orgId}\n${key}`).update(request).digest("base64url");
