/**
 * Organizations and their API keys. Keys are stored only as SHA-256 hashes, under an id derived from
 * the hash, so a request's key is found by `_id` (the one lookup FerretDB v1 pushes down; see
 * docs/decisions/storage-and-ferretdb.md).
 */
import { createHash, randomBytes } from "node:crypto";
import type { Collection, Db } from "mongodb";
import { newId } from "../../ids.js";
import { KeyCache } from "./key-cache.js";

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
  /** What the key may do (`KEY_SCOPES`); a key stored before keys had scopes has the core interface's alone. */
  scopes?: KeyScope[];
  /** The operator's label for the key (`keys create --name`), to tell an organization's keys apart. */
  name?: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** What may be shown of a stored key: everything but its hash. */
export interface KeySummary {
  id: string;
  orgId: string;
  name: string | null;
  scopes: readonly KeyScope[];
  requestsPerMinute: number;
  createdAt: Date;
  revokedAt: Date | null;
}

const summaryOf = (doc: ApiKeyDoc): KeySummary => ({
  id: doc._id,
  orgId: doc.orgId,
  name: doc.name ?? null,
  scopes: doc.scopes ?? DEFAULT_KEY_SCOPES,
  requestsPerMinute: doc.requestsPerMinute,
  createdAt: doc.createdAt,
  revokedAt: doc.revokedAt,
});

/**
 * Scopes a key may carry: `api`, the agent sessions interface (x-api-key); `deployments:read` and
 * `deployments:write`, the deployments interface (Bearer). A key is made with the scopes its holder needs.
 */
export const KEY_SCOPES = ["api", "deployments:read", "deployments:write"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export const DEFAULT_KEY_SCOPES: KeyScope[] = ["api"];

export interface Principal {
  orgId: string;
  keyId: string;
  requestsPerMinute: number;
  scopes: readonly KeyScope[];
}

export function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** A key's id: 128 bits of its hash, which reveal nothing of a 256-bit random key. */
export function keyIdOf(hash: string): string {
  return `key_${hash.slice(0, 32)}`;
}

export class OrganizationStore {
  private readonly orgs: Collection<OrganizationDoc>;
  private readonly keys: Collection<ApiKeyDoc>;
  private readonly cache: KeyCache<Principal>;

  /** `now` is the key cache's clock. */
  constructor(db: Db, now: () => number = Date.now) {
    this.cache = new KeyCache(now);
    this.orgs = db.collection<OrganizationDoc>("organizations");
    this.keys = db.collection<ApiKeyDoc>("api_keys");
  }

  /** Returns the organization's id, creating it when new. Safe against a concurrent creator. */
  async ensureOrganization(name: string): Promise<string> {
    const existing = await this.idOf(name);
    if (existing) return existing;
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

  /** The id of the organization named `name`, or null when there is none. */
  async idOf(name: string): Promise<string | null> {
    return (await this.orgs.findOne({ name }))?._id ?? null;
  }

  /** The name of the organization `orgId`, or null when there is none. */
  async nameOf(orgId: string): Promise<string | null> {
    return (await this.orgs.findOne({ _id: orgId }))?.name ?? null;
  }

  /** Creates a key and returns the secret; it is not stored and cannot be shown again. */
  async createKey(
    orgId: string,
    requestsPerMinute = DEFAULT_KEY_REQUESTS_PER_MINUTE,
    scopes: KeyScope[] = DEFAULT_KEY_SCOPES,
    name?: string,
  ): Promise<{ id: string; key: string }> {
    const key = `ask_${randomBytes(32).toString("base64url")}`;
    const hash = hashKey(key);
    const id = keyIdOf(hash);
    await this.keys.insertOne({
      _id: id,
      orgId,
      hash,
      requestsPerMinute,
      scopes: [...new Set(scopes)],
      ...(name === undefined ? {} : { name }),
      createdAt: new Date(),
      revokedAt: null,
    });
    return { id, key };
  }

  /** The organization's keys, oldest first, revoked ones included. */
  async keysOf(orgId: string): Promise<KeySummary[]> {
    return (await this.keys.find({ orgId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(summaryOf);
  }

  async keyById(keyId: string): Promise<KeySummary | null> {
    const doc = await this.keys.findOne({ _id: keyId });
    return doc && summaryOf(doc);
  }

  /**
   * Marks the key revoked (false: no such key, or already revoked). This process forgets it at once;
   * every other process's key cache may accept it for up to `KEY_CACHE_TTL_MS` more.
   */
  async revokeKey(keyId: string): Promise<boolean> {
    const res = await this.keys.updateOne({ _id: keyId, revokedAt: null }, { $set: { revokedAt: new Date() } });
    this.cache.forget(keyId);
    return res.matchedCount === 1;
  }

  /** Valid keys are remembered for a few seconds so most requests cost no database read. */
  authenticate(key: string): Promise<Principal | null> {
    const hash = hashKey(key);
    return this.cache.get(hash, async () => {
      const doc = await this.lookup(hash);
      return doc && !doc.revokedAt
        ? { orgId: doc.orgId, keyId: doc._id, requestsPerMinute: doc.requestsPerMinute, scopes: doc.scopes ?? DEFAULT_KEY_SCOPES }
        : null;
    });
  }

  /** By id; a key created before ids were derived from hashes (random `key_…` id) is found by its hash. */
  private async lookup(hash: string): Promise<ApiKeyDoc | null> {
    const doc = await this.keys.findOne({ _id: keyIdOf(hash) });
    if (doc) return doc.hash === hash ? doc : null;
    return this.keys.findOne({ hash });
  }
}
