/**
 * Organizations' webhook endpoints: where deliveries go, which event types they take, and their signing
 * secret, sealed like vault credentials (to the endpoint's id, so a sealed secret copied onto another
 * record does not open). A rotated-out secret signs beside the new one for a while, so receivers can
 * move to the new one without refusing deliveries. Every read names the organization: another's
 * endpoint reads as absent.
 */
import type { Collection, Db } from "mongodb";
import type { Page } from "../../agents/store/agents.js";
import type { OrgChanges } from "../../mongo/org-changes.js";
import type { SecretBox, Sealed } from "../../vaults/store/secret-box.js";

interface EndpointDoc {
  _id: string;
  orgId: string;
  url: string;
  description: string | null;
  /** The event types it takes; null: every type. */
  eventTypes: string[] | null;
  enabled: boolean;
  secret: Sealed;
  /** The secret a rotation replaced, still signing until `until`. */
  previousSecret?: { secret: Sealed; until: Date };
  createdAt: Date;
  updatedAt: Date;
}

export type WebhookEndpointRecord = Omit<EndpointDoc, "secret" | "previousSecret">;
export type EndpointChanges = Partial<Pick<EndpointDoc, "url" | "description" | "eventTypes" | "enabled">>;

const secretContext = (id: string) => `webhook-endpoint:${id}`;
const withoutSecret = { secret: 0, previousSecret: 0 } as const;

function view(doc: EndpointDoc): WebhookEndpointRecord {
  const { secret: _, previousSecret: __, ...rest } = doc;
  return rest;
}

export class WebhookEndpointStore {
  private readonly endpoints: Collection<EndpointDoc>;

  /** `changes` is told after every write that changes which endpoints take notices (not a rotation). */
  constructor(
    db: Db,
    private readonly box: SecretBox | undefined,
    private readonly changes: OrgChanges,
  ) {
    this.endpoints = db.collection<EndpointDoc>("webhook_endpoints");
  }

  get canSeal(): boolean {
    return this.box !== undefined;
  }

  async count(orgId: string): Promise<number> {
    return this.endpoints.countDocuments({ orgId });
  }

  async create(endpoint: Omit<WebhookEndpointRecord, "createdAt" | "updatedAt">, secret: string): Promise<WebhookEndpointRecord> {
    if (!this.box) throw new Error("no vault key: webhook secrets cannot be sealed");
    const now = new Date();
    const doc: EndpointDoc = { ...endpoint, secret: this.box.seal(secret, secretContext(endpoint._id)), createdAt: now, updatedAt: now };
    await this.endpoints.insertOne(doc);
    await this.changes.changed(endpoint.orgId);
    return view(doc);
  }

  async get(orgId: string, id: string): Promise<WebhookEndpointRecord | null> {
    return this.endpoints.findOne({ _id: id, orgId }, { projection: withoutSecret });
  }

  async list(orgId: string, opts: { limit: number; offset: number }): Promise<Page<WebhookEndpointRecord>> {
    const docs = await this.endpoints
      .find({ orgId }, { projection: withoutSecret })
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit), hasMore: docs.length > opts.limit };
  }

  /** The organization's enabled endpoints (the filter is applied by the caller). */
  async enabled(orgId: string): Promise<WebhookEndpointRecord[]> {
    return this.endpoints.find({ orgId, enabled: true }, { projection: withoutSecret }).limit(100).toArray();
  }

  async update(orgId: string, id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord | null> {
    // No projection: FerretDB refuses one on findAndModify.
    const doc = await this.endpoints.findOneAndUpdate({ _id: id, orgId }, { $set: { ...changes, updatedAt: new Date() } }, { returnDocument: "after" });
    if (doc) await this.changes.changed(orgId);
    return doc && view(doc);
  }

  /** Replaces the secret; the one replaced keeps signing for `overlapMs`. Callers take turns per organization (a read, then a write). */
  async rotate(orgId: string, id: string, secret: string, overlapMs: number): Promise<WebhookEndpointRecord | null> {
    if (!this.box) throw new Error("no vault key: webhook secrets cannot be sealed");
    const current = await this.endpoints.findOne({ _id: id, orgId });
    if (!current) return null;
    const now = new Date();
    const previousSecret = { secret: current.secret, until: new Date(now.getTime() + overlapMs) };
    const sealed = this.box.seal(secret, secretContext(id));
    const doc = await this.endpoints.findOneAndUpdate(
      { _id: id, orgId },
      { $set: { secret: sealed, previousSecret, updatedAt: now } },
      { returnDocument: "after" },
    );
    return doc && view(doc);
  }

  async remove(orgId: string, id: string): Promise<boolean> {
    const removed = (await this.endpoints.deleteOne({ _id: id, orgId })).deletedCount === 1;
    if (removed) await this.changes.changed(orgId);
    return removed;
  }

  /**
   * The endpoint's URL and opened secrets, for signing a delivery: the current one, then a rotated-out
   * one still in its overlap; null when gone, disabled or not openable here.
   */
  async withSecrets(id: string, now = new Date()): Promise<{ url: string; secrets: string[] } | null> {
    const doc = await this.endpoints.findOne({ _id: id });
    const secret = doc?.enabled ? this.opened(doc.secret, id) : null;
    if (!doc || secret === null) return null;
    const previous = doc.previousSecret && doc.previousSecret.until > now ? this.opened(doc.previousSecret.secret, id) : null;
    return { url: doc.url, secrets: previous === null ? [secret] : [secret, previous] };
  }

  /** The endpoint's opened secret, enabled or not; null when gone or not openable here. */
  async secretOf(id: string): Promise<string | null> {
    const doc = await this.endpoints.findOne({ _id: id });
    return doc ? this.opened(doc.secret, id) : null;
  }

  private opened(sealed: Sealed, id: string): string | null {
    return this.box?.canOpen(sealed) ? this.box.open<string>(sealed, secretContext(id)) : null;
  }
}
