/**
 * An organization's secrets (the deployments interface's `sec_<id>` references): a label and a value
 * sealed like vault credentials' (`secret-box.ts`, the vault key), with `org/secret` as additional data
 * so a sealed value copied onto another record does not open. Every read but `open` projects the value
 * away, so nothing built from a `SecretDoc` can show it. Lookups are by `_id`, the organization checked
 * in code (FerretDB v1 pushes down `_id` alone).
 */
import type { Collection, Db } from "mongodb";
import { unavailable } from "../../errors.js";
import { newId } from "../../ids.js";
import type { Page } from "../../agents/store/agents.js";
import type { Sealed, SecretBox } from "./secret-box.js";

export interface SecretDoc {
  _id: string;
  orgId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

interface StoredSecret extends SecretDoc {
  sealed: Sealed;
}

const WITHOUT_VALUE = { projection: { sealed: 0 } } as const;
const context = (d: Pick<SecretDoc, "_id" | "orgId">) => `secret/${d.orgId}/${d._id}`;

export class SecretStore {
  private readonly secrets: Collection<StoredSecret>;

  constructor(
    db: Db,
    private readonly box: SecretBox | undefined,
  ) {
    this.secrets = db.collection<StoredSecret>("secrets");
  }

  private sealer(): SecretBox {
    if (!this.box) throw unavailable("secrets cannot be stored or used: VAULT_ENCRYPTION_KEY is not configured");
    return this.box;
  }

  async create(orgId: string, name: string, value: string, id = newId("sec")): Promise<SecretDoc> {
    const now = new Date();
    const doc: SecretDoc = { _id: id, orgId, name, createdAt: now, updatedAt: now };
    await this.secrets.insertOne({ ...doc, sealed: this.sealer().seal(value, context(doc)) });
    return doc;
  }

  async get(orgId: string, id: string): Promise<SecretDoc | null> {
    const doc = await this.secrets.findOne({ _id: id }, WITHOUT_VALUE);
    return doc && doc.orgId === orgId ? doc : null;
  }

  /** Newest first; `before`: the id the previous page ended at (ids sort by creation time). */
  async list(orgId: string, opts: { limit: number; before?: string }): Promise<Page<SecretDoc>> {
    const filter = opts.before === undefined ? { orgId } : { orgId, _id: { $lt: opts.before } };
    const docs = await this.secrets
      .find(filter, WITHOUT_VALUE)
      .sort({ _id: -1 })
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit), hasMore: docs.length > opts.limit };
  }

  /** Those of `ids` that are the organization's secrets: one lookup by `_id` each (what FerretDB v1 pushes down; `$in` scans). */
  async existing(orgId: string, ids: string[]): Promise<Set<string>> {
    const docs = await Promise.all(ids.map((id) => this.secrets.findOne({ _id: id }, { projection: { orgId: 1 } })));
    return new Set(docs.filter((d) => d !== null && d.orgId === orgId).map((d) => d!._id));
  }

  /** The organization's secrets among `ids`, their values opened: for the tool processes that need them now. */
  async open(orgId: string, ids: string[]): Promise<Map<string, string>> {
    const docs = await Promise.all(ids.map((id) => this.secrets.findOne({ _id: id })));
    const opened = new Map<string, string>();
    for (const d of docs) if (d && d.orgId === orgId) opened.set(d._id, this.sealer().open<string>(d.sealed, context(d)));
    return opened;
  }

  /** The name and the value replaced when given (the value sealed anew, under the current key); null when the secret is gone. */
  async replace(doc: SecretDoc, change: { name?: string; value?: string }): Promise<SecretDoc | null> {
    const set: Record<string, unknown> = { updatedAt: new Date() };
    if (change.name !== undefined) set.name = change.name;
    if (change.value !== undefined) set.sealed = this.sealer().seal(change.value, context(doc));
    // FerretDB v1 refuses a projection on findAndModify: the value is dropped here instead.
    const updated = await this.secrets.findOneAndUpdate({ _id: doc._id }, { $set: set }, { returnDocument: "after" });
    if (!updated) return null;
    const { sealed: _, ...rest } = updated;
    return rest;
  }

  /** Removes the record, and with it the stored value. */
  async delete(doc: Pick<SecretDoc, "_id">): Promise<boolean> {
    return (await this.secrets.deleteOne({ _id: doc._id })).deletedCount === 1;
  }
}
