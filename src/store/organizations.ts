/** Organizations and their API keys. Keys are stored only as SHA-256 hashes. */
import { createHash, randomBytes } from "node:crypto";
import type { Collection, Db } from "mongodb";
import { newId } from "../ids.js";

export const DEFAULT_KEY_REQUESTS_PER_MINUTE = 1_000;

interface OrganizationDoc {
  _id: string;
  name: string;
  createdAt: Date;
}

export interface ApiKeyDoc {
  _id: string;
  orgId: string;
  hash: string;
  /** The per-key ceiling stored at creation; later default changes do not touch existing keys. */
  requestsPerMinute: number;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface Principal {
  orgId: string;
  keyId: string;
  requestsPerMinute: number;
}

/** How long a pod trusts a key lookup; a key revoked through another pod stops working within this. */
export const KEY_CACHE_TTL_MS = 5_000;
const KEY_CACHE_SIZE = 10_000;

export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export class OrganizationStore {
  private readonly orgs: Collection<OrganizationDoc>;
  private readonly keys: Collection<ApiKeyDoc>;
  private readonly recent = new Map<string, { principal: Principal; until: number }>();

  constructor(db: Db) {
    this.orgs = db.collection<OrganizationDoc>("organizations");
    this.keys = db.collection<ApiKeyDoc>("api_keys");
  }

  /** Returns the organization's id, creating it when new. Safe against a concurrent creator. */
  async ensureOrganization(name: string): Promise<string> {
    const existing = await this.orgs.findOne({ name });
    if (existing) return existing._id;
    try {
      const doc: OrganizationDoc = { _id: newId("org"), name, createdAt: new Date() };
      await this.orgs.insertOne(doc);
      return doc._id;
    } catch (err) {
      const again = await this.orgs.findOne({ name });
      if (again) return again._id;
      throw err;
    }
  }

  /** Creates a key and returns the secret; it is not stored and cannot be shown again. */
  async createKey(orgId: string, requestsPerMinute = DEFAULT_KEY_REQUESTS_PER_MINUTE): Promise<{ id: string; key: string }> {
    const key = `ask_${randomBytes(32).toString("base64url")}`;
    const id = newId("key");
    await this.keys.insertOne({
      _id: id,
      orgId,
      hash: hashKey(key),
      requestsPerMinute,
      createdAt: new Date(),
      revokedAt: null,
    });
    return { id, key };
  }

  async revokeKey(keyId: string): Promise<boolean> {
    const res = await this.keys.updateOne({ _id: keyId, revokedAt: null }, { $set: { revokedAt: new Date() } });
    for (const [hash, entry] of this.recent) if (entry.principal.keyId === keyId) this.recent.delete(hash);
    return res.matchedCount === 1;
  }

  /** Valid keys are remembered for a few seconds so most requests cost no database read. */
  async authenticate(key: string): Promise<Principal | null> {
    const hash = hashKey(key);
    const cached = this.recent.get(hash);
    if (cached && cached.until > Date.now()) return cached.principal;
    const doc = await this.keys.findOne({ hash });
    if (!doc || doc.revokedAt) {
      this.recent.delete(hash);
      return null;
    }
    const principal = { orgId: doc.orgId, keyId: doc._id, requestsPerMinute: doc.requestsPerMinute };
    if (this.recent.size >= KEY_CACHE_SIZE) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(hash, { principal, until: Date.now() + KEY_CACHE_TTL_MS });
    return principal;
  }
}
