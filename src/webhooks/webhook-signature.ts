/**
 * Signatures as the Standard Webhooks specification gives them: the secret is `whsec_` and base64 key
 * bytes; the signed content is `<webhook-id>.<webhook-timestamp>.<body>`; `webhook-signature` is
 * `v1,<base64 HMAC-SHA256>`, one per secret, space-separated (a rotation's overlap signs with both).
 * Receivers verify with any Standard Webhooks library.
 */
import { createHmac, randomBytes } from "node:crypto";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** The headers of one delivery attempt, signed with each of `secrets`. */
export function webhookHeaders(secrets: string[], id: string, body: string, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((secret) => signWebhook(secret, id, timestamp, body)).join(" "),
  };
}
