/**
 * Vaults: named sets of credentials that agents attach. Lookups name one vault by `_id` and check the
 * organization in code (the store's rule, docs/decisions/storage-and-ferretdb.md): another organization's vault
 * reads as absent.
 */
import type { Collection, Db } from "mongodb";
import { isDuplicateKey } from "../../mongo/mongo.js";
import type { Metadata } from "../../agents/domain/agent-config.js";
import { newId } from "../../ids.js";
import type { Page } from "../../agents/store/agents.js";
import { decode, encode } from "../../mongo/caller-json.js";
import type { OrgChanges } from "../../mongo/org-changes.js";

export interface VaultDoc {
  _id: string;
  orgId: string;
  displayName: string;
  metadata: Metadata;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Metadata is stored as JSON text: its keys are the caller's (see caller-json.ts). */
const stored = (v: VaultDoc): VaultDoc => ({ ...v, metadata: encode(v.metadata) as unknown as Metadata });
const loaded = (v: VaultDoc): VaultDoc => ({ ...v, metadata: decode(v.metadata) as Metadata });

export class VaultStore {
  private readonly vaults: Collection<VaultDoc>;

  constructor(
    db: Db,
    private readonly changes: OrgChanges,
  ) {
    this.vaults = db.collection<VaultDoc>("vaults");
  }

  async create(orgId: string, displayName: string, metadata: Metadata, id = newId("vlt")): Promise<VaultDoc> {
    const now = new Date();
    const doc: VaultDoc = { _id: id, orgId, displayName, metadata, archivedAt: null, createdAt: now, updatedAt: now };
    await this.vaults.insertOne(stored(doc));
    return doc;
  }

  /** Creates the vault under an id chosen beforehand, or finds the one an earlier attempt created under it. */
  async createOnce(id: string, orgId: string, displayName: string, metadata: Metadata): Promise<VaultDoc | null> {
    try {
      return await this.create(orgId, displayName, metadata, id);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return this.get(orgId, id);
    }
  }

  async get(orgId: string, id: string): Promise<VaultDoc | null> {
    const doc = await this.vaults.findOne({ _id: id });
    return doc?.orgId === orgId ? loaded(doc) : null;
  }

  /** The organization's vaults among `ids` (absent ones and another organization's left out). */
  async getMany(orgId: string, ids: string[]): Promise<VaultDoc[]> {
    if (ids.length === 0) return [];
    const docs = await this.vaults.find({ _id: { $in: ids } }).toArray();
    return docs.filter((d) => d.orgId === orgId).map(loaded);
  }

  /** Active vaults, newest first. */
  async list(orgId: string, opts: { limit: number; offset: number }): Promise<Page<VaultDoc>> {
    const docs = await this.vaults
      .find({ orgId, archivedAt: null })
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit).map(loaded), hasMore: docs.length > opts.limit };
  }

  /** Idempotent: an archived vault keeps its first archive time. */
  async archive(orgId: string, id: string): Promise<VaultDoc | null> {
    const doc = await this.get(orgId, id);
    if (!doc) return doc;
    if (doc.archivedAt) {
      // A repeat still tells the caches, should the first archive have failed to.
      await this.changes.changed(orgId);
      return doc;
    }
    const now = new Date();
    await this.vaults.updateOne({ _id: id, archivedAt: null }, { $set: { archivedAt: now, updatedAt: now } });
    await this.changes.changed(orgId);
    return this.get(orgId, id);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.vaults.deleteOne({ _id: id })).deletedCount === 1;
  }
}
