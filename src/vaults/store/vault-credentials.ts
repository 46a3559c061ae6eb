/**
 * Credentials of vaults, each for one MCP server. The secrets are sealed (`secret-box.ts`) with the
 * record's identity as additional data, and leave this store only through `secretsOf` and `open` (for rotation
 * and for the MCP request that needs them): every other read projects them away, so a presenter can
 * never show them. Lookups name one credential by `_id` and check its organization and vault in code.
 */
import type { Collection, Db } from "mongodb";
import { isDuplicateKey } from "../../mongo/mongo.js";
import type { Metadata } from "../../agents/domain/agent-config.js";
import { unavailable } from "../../errors.js";
import { newId } from "../../ids.js";
import type { Page } from "../../agents/store/agents.js";
import { decode, encode } from "../../mongo/caller-json.js";
import type { Sealed, SecretBox } from "./secret-box.js";
import type { OrgChanges } from "../../mongo/org-changes.js";

export type TokenEndpointAuthType = "none" | "client_secret_basic" | "client_secret_post";

export interface OAuthRefresh {
  tokenEndpoint: string;
  clientId: string;
  tokenEndpointAuth: { type: TokenEndpointAuthType };
}

/** A credential's `auth` without its secrets: all that is ever shown. */
export type CredentialAuth =
  { type: "static_bearer"; mcpServerUrl: string } | { type: "mcp_oauth"; mcpServerUrl: string; expiresAt: Date; refresh: OAuthRefresh | null };

export type CredentialSecrets =
  { type: "static_bearer"; token: string } | { type: "mcp_oauth"; accessToken: string; refreshToken: string | null; clientSecret: string | null };

export interface CredentialDoc {
  _id: string;
  orgId: string;
  vaultId: string;
  displayName: string;
  metadata: Metadata | null;
  auth: CredentialAuth;
  /** `auth.mcpServerUrl` normalized: what matches it to servers. */
  serverKey: string;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** When the token endpoint last refused to refresh it; cleared when its secrets change. Absent on older records. */
  refusedAt?: Date | null;
  /** Counts the secrets' replacements (1 at creation; absent, 0, on older records): what their writers compare and set. */
  secretsVersion?: number;
}

interface StoredCredential extends CredentialDoc {
  sealed: Sealed;
}

/** A credential with whether this process holds the key its secrets need. */
export interface CredentialState {
  doc: CredentialDoc;
  readable: boolean;
}

export type CredentialChange = Partial<Pick<CredentialDoc, "displayName" | "metadata">> & { expiresAt?: Date };

const WITHOUT_SECRETS = { projection: { sealed: 0 } } as const;
const context = (d: Pick<CredentialDoc, "_id" | "orgId" | "vaultId">) => `${d.orgId}/${d.vaultId}/${d._id}`;

/** The filter of a record whose secrets are still those of `doc` (older records have no version: 0). */
const sameSecrets = (doc: CredentialDoc) => (doc.secretsVersion ? { secretsVersion: doc.secretsVersion } : { secretsVersion: { $exists: false } });

const loaded = (d: CredentialDoc): CredentialDoc => ({ ...d, metadata: d.metadata === null ? null : (decode(d.metadata) as Metadata) });
const storedMetadata = (m: Metadata | null) => (m === null ? null : (encode(m) as unknown as Metadata));

export class CredentialStore {
  private readonly credentials: Collection<StoredCredential>;

  constructor(
    db: Db,
    private readonly box: SecretBox | undefined,
    private readonly changes: OrgChanges,
  ) {
    this.credentials = db.collection<StoredCredential>("vault_credentials");
  }

  private sealer(): SecretBox {
    if (!this.box) throw unavailable("credentials cannot be stored or used: VAULT_ENCRYPTION_KEY is not configured");
    return this.box;
  }

  /** Whether secrets can be sealed here (VAULT_ENCRYPTION_KEY is configured). */
  canSeal(): boolean {
    return this.box !== undefined;
  }

  async create(
    fields: Omit<CredentialDoc, "_id" | "archivedAt" | "createdAt" | "updatedAt">,
    secrets: CredentialSecrets,
    id = newId("vcr"),
  ): Promise<CredentialDoc> {
    const now = new Date();
    const doc: CredentialDoc = { _id: id, ...fields, archivedAt: null, createdAt: now, updatedAt: now, secretsVersion: 1 };
    await this.credentials.insertOne({ ...doc, metadata: storedMetadata(doc.metadata), sealed: this.sealer().seal(secrets, context(doc)) });
    await this.changes.changed(doc.orgId);
    return doc;
  }

  /** Creates the credential under an id chosen beforehand, or finds the one an earlier attempt created under it. */
  async createOnce(
    id: string,
    fields: Omit<CredentialDoc, "_id" | "archivedAt" | "createdAt" | "updatedAt">,
    secrets: CredentialSecrets,
  ): Promise<CredentialDoc | null> {
    try {
      return await this.create(fields, secrets, id);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return this.get(fields.orgId, fields.vaultId, id);
    }
  }

  async get(orgId: string, vaultId: string, id: string): Promise<CredentialDoc | null> {
    const doc = await this.credentials.findOne({ _id: id }, WITHOUT_SECRETS);
    return doc && doc.orgId === orgId && doc.vaultId === vaultId ? loaded(doc) : null;
  }

  /** A vault's active credentials, newest first. */
  async list(vaultId: string, opts: { limit: number; offset: number }): Promise<Page<CredentialDoc>> {
    const docs = await this.credentials
      .find({ vaultId, archivedAt: null }, WITHOUT_SECRETS)
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit).map(loaded), hasMore: docs.length > opts.limit };
  }

  /** The active credentials of the vaults `vaultIds`, each with whether its key is at hand. */
  async activeIn(vaultIds: string[]): Promise<CredentialState[]> {
    if (vaultIds.length === 0) return [];
    const docs = await this.credentials.find({ vaultId: { $in: vaultIds }, archivedAt: null }).toArray();
    return docs.map(({ sealed, ...doc }) => ({ doc: loaded(doc), readable: this.box?.canOpen(sealed) ?? false }));
  }

  /** Whether the vault holds any credential, active or archived. */
  async any(vaultId: string): Promise<boolean> {
    return (await this.credentials.findOne({ vaultId }, { projection: { _id: 1 } })) !== null;
  }

  /** The credential as stored now with its secrets opened, in one read; null when it is gone. For the request that sends them. */
  async open(id: string): Promise<{ doc: CredentialDoc; secrets: CredentialSecrets } | null> {
    const stored = await this.credentials.findOne({ _id: id });
    if (!stored) return null;
    const { sealed, ...doc } = stored;
    return { doc: loaded(doc), secrets: this.sealer().open<CredentialSecrets>(sealed, context(doc)) };
  }

  /**
   * Records that the token endpoint refused a refresh of the secrets `doc` holds: the credential needs
   * reauthorizing (status `reconnect`). Secrets replaced since (a person reauthorized) are not marked.
   */
  async markRefused(doc: CredentialDoc): Promise<void> {
    await this.credentials.updateOne({ _id: doc._id, ...sameSecrets(doc) }, { $set: { refusedAt: new Date() } });
    await this.changes.changed(doc.orgId);
  }

  /** The credential's secrets, opened; for rotation. */
  async secretsOf(doc: CredentialDoc): Promise<CredentialSecrets> {
    const stored = await this.credentials.findOne({ _id: doc._id }, { projection: { sealed: 1 } });
    if (!stored) throw unavailable("the credential was deleted");
    return this.sealer().open<CredentialSecrets>(stored.sealed, context(doc));
  }

  /**
   * Display fields and expiry changed, and the secrets replaced when given (sealed anew, under the
   * current key) if they are still those `doc` was read with: "stale" when another writer (a rotation,
   * a refresh) replaced them since, so neither overwrites the other's tokens with older ones. Null when
   * the credential is gone.
   */
  async update(doc: CredentialDoc, change: CredentialChange, secrets?: CredentialSecrets): Promise<CredentialDoc | "stale" | null> {
    const { expiresAt, ...display } = change;
    const set: Record<string, unknown> = { ...display, updatedAt: new Date() };
    if (display.metadata !== undefined) set.metadata = storedMetadata(display.metadata);
    if (expiresAt) set["auth.expiresAt"] = expiresAt;
    if (secrets) {
      set.sealed = this.sealer().seal(secrets, context(doc));
      set.refusedAt = null;
      set.secretsVersion = (doc.secretsVersion ?? 0) + 1;
    }
    const updated = await this.credentials.findOneAndUpdate({ _id: doc._id, ...(secrets ? sameSecrets(doc) : {}) }, { $set: set }, { returnDocument: "after" });
    await this.changes.changed(doc.orgId);
    if (!updated) return secrets && (await this.credentials.findOne({ _id: doc._id }, { projection: { _id: 1 } })) ? "stale" : null;
    const { sealed: _, ...rest } = updated;
    return loaded(rest);
  }

  /** Idempotent: an archived credential keeps its first archive time (a repeat still tells the caches, should the first have failed to). */
  async archive(doc: CredentialDoc): Promise<CredentialDoc | null> {
    if (doc.archivedAt) {
      await this.changes.changed(doc.orgId);
      return doc;
    }
    const now = new Date();
    await this.credentials.updateOne({ _id: doc._id, archivedAt: null }, { $set: { archivedAt: now, updatedAt: now } });
    await this.changes.changed(doc.orgId);
    return this.get(doc.orgId, doc.vaultId, doc._id);
  }

  /** Removes the record, and with it the stored value. */
  async delete(doc: Pick<CredentialDoc, "_id" | "orgId">): Promise<boolean> {
    const deleted = (await this.credentials.deleteOne({ _id: doc._id })).deletedCount === 1;
    await this.changes.changed(doc.orgId);
    return deleted;
  }
}
