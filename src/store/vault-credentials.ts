/**
 * Credentials of vaults, each for one MCP server. The secrets are sealed (`secret-box.ts`) with the
 * record's identity as additional data, and leave this store only through `secretsOf` and `open` (for rotation
 * and for the MCP request that needs them): every other read projects them away, so a presenter can
 * never show them. Lookups name one credential by `_id` and check its organization and vault in code.
 */
import { MongoServerError, type Collection, type Db } from "mongodb";
import type { Metadata } from "../domain/agent-config.js";
import { unavailable } from "../errors.js";
import { newId } from "../ids.js";
import type { Page } from "./agents.js";
import { decode, encode } from "./caller-json.js";
import type { Sealed, SecretBox } from "./secret-box.js";
import { NO_CHANGES, type VaultChanges } from "./vault-changes.js";

export type TokenEndpointAuthType = "none" | "client_secret_basic" | "client_secret_post";

export interface OAuthRefresh {
  tokenEndpoint: string;
  clientId: string;
  tokenEndpointAuth: { type: TokenEndpointAuthType };
}

/** A credential's `auth` without its secrets: all that is ever shown. */
export type CredentialAuth =
  | { type: "static_bearer"; mcpServerUrl: string }
  | { type: "mcp_oauth"; mcpServerUrl: string; expiresAt: Date; refresh: OAuthRefresh | null };

export type CredentialSecrets =
  | { type: "static_bearer"; token: string }
  | { type: "mcp_oauth"; accessToken: string; refreshToken: string | null; clientSecret: string | null };

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

const loaded = (d: CredentialDoc): CredentialDoc => ({ ...d, metadata: d.metadata === null ? null : (decode(d.metadata) as Metadata) });
const storedMetadata = (m: Metadata | null) => (m === null ? null : (encode(m) as unknown as Metadata));

export class CredentialStore {
  private readonly credentials: Collection<StoredCredential>;

  constructor(
    db: Db,
    private readonly box: SecretBox | undefined,
    private readonly changes: VaultChanges = NO_CHANGES,
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

  async create(fields: Omit<CredentialDoc, "_id" | "archivedAt" | "createdAt" | "updatedAt">, secrets: CredentialSecrets, id = newId("vcr")): Promise<CredentialDoc> {
    const now = new Date();
    const doc: CredentialDoc = { _id: id, ...fields, archivedAt: null, createdAt: now, updatedAt: now };
    await this.credentials.insertOne({ ...doc, metadata: storedMetadata(doc.metadata), sealed: this.sealer().seal(secrets, context(doc)) });
    await this.changes.changed(doc.orgId);
    return doc;
  }

  /** Creates the credential under an id chosen beforehand, or finds the one an earlier attempt created under it. */
  async createOnce(id: string, fields: Omit<CredentialDoc, "_id" | "archivedAt" | "createdAt" | "updatedAt">, secrets: CredentialSecrets): Promise<CredentialDoc | null> {
    try {
      return await this.create(fields, secrets, id);
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      return this.get(fields.orgId, fields.vaultId, id);
    }
  }

  async get(orgId: string, vaultId: string, id: string): Promise<CredentialDoc | null> {
    const doc = await this.credentials.findOne({ _id: id }, WITHOUT_SECRETS);
    return doc && doc.orgId === orgId && doc.vaultId === vaultId ? loaded(doc) : null;
  }

  /** A vault's active credentials, newest first. */
  async list(vaultId: string, opts: { limit: number; offset: number }): Promise<Page<CredentialDoc>> {
    const docs = await this.credentials.find({ vaultId, archivedAt: null }, WITHOUT_SECRETS).sort({ createdAt: -1, _id: -1 }).skip(opts.offset).limit(opts.limit + 1).toArray();
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

  /** Records that the token endpoint refused a refresh: the credential needs reauthorizing (status `reconnect`). */
  async markRefused(doc: CredentialDoc): Promise<void> {
    await this.credentials.updateOne({ _id: doc._id }, { $set: { refusedAt: new Date() } });
    await this.changes.changed(doc.orgId);
  }

  /** The credential's secrets, opened; for rotation. */
  async secretsOf(doc: CredentialDoc): Promise<CredentialSecrets> {
    const stored = await this.credentials.findOne({ _id: doc._id }, { projection: { sealed: 1 } });
    if (!stored) throw unavailable("the credential was deleted");
    return this.sealer().open<CredentialSecrets>(stored.sealed, context(doc));
  }

  /** Display fields and expiry changed, and the secrets replaced when given (sealed anew, under the current key). */
  async update(doc: CredentialDoc, change: CredentialChange, secrets?: CredentialSecrets): Promise<CredentialDoc | null> {
    const { expiresAt, ...display } = change;
    const set: Record<string, unknown> = { ...display, updatedAt: new Date() };
    if (display.metadata !== undefined) set.metadata = storedMetadata(display.metadata);
    if (expiresAt) set["auth.expiresAt"] = expiresAt;
    if (secrets) {
      set.sealed = this.sealer().seal(secrets, context(doc));
      set.refusedAt = null;
    }
    const updated = await this.credentials.findOneAndUpdate({ _id: doc._id }, { $set: set }, { returnDocument: "after" });
    await this.changes.changed(doc.orgId);
    if (!updated) return null;
    const { sealed: _, ...rest } = updated;
    return loaded(rest);
  }

  /** Idempotent: an archived credential keeps its first archive time. */
  async archive(doc: CredentialDoc): Promise<CredentialDoc | null> {
    if (doc.archivedAt) return doc;
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
