/**
 * Encryption of credential secrets at rest: AES-256-GCM, a fresh 96-bit nonce per value, and the
 * record's identity as additional data, so a sealed value copied onto another record does not open.
 * Each sealed value names its key by id (the first 16 hex digits of the key's SHA-256, which reveals
 * nothing usable), so keys rotate: a new current key seals, older keys listed beside it still open
 * what they sealed until it is re-encrypted (docs/decisions/security.md, "Secrets at rest").
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { AppError, unavailable } from "../../errors.js";

export interface Sealed {
  /** The id of the key that sealed it. */
  k: string;
  iv: string;
  tag: string;
  ct: string;
}

const keyIdOf = (key: Buffer) => createHash("sha256").update(key).digest("hex").slice(0, 16);

export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  readonly currentKeyId: string;

  constructor(
    private readonly current: Buffer,
    older: Buffer[] = [],
  ) {
    this.currentKeyId = keyIdOf(current);
    this.keys = new Map([...older, current].map((key) => [keyIdOf(key), key]));
  }

  seal(plain: unknown, context: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current, iv);
    cipher.setAAD(Buffer.from(context));
    const ct = Buffer.concat([cipher.update(JSON.stringify(plain), "utf8"), cipher.final()]);
    return { k: this.currentKeyId, iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), ct: ct.toString("base64") };
  }

  /** Whether this process holds the key that sealed `sealed`. */
  canOpen(sealed: Sealed): boolean {
    return this.keys.has(sealed.k);
  }

  open<T>(sealed: Sealed, context: string): T {
    const key = this.keys.get(sealed.k);
    if (!key) throw unavailable("the key that encrypted this credential is not configured (VAULT_DECRYPTION_KEYS)");
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    try {
      return JSON.parse(Buffer.concat([decipher.update(Buffer.from(sealed.ct, "base64")), decipher.final()]).toString("utf8")) as T;
    } catch (err) {
      throw new AppError("internal", "a stored credential failed its integrity check", {}, err instanceof Error ? err.name : "unknown");
    }
  }
}
