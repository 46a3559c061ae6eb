/**
 * Organizations' webhook endpoints: where deliveries go, which event types they take, and their signing
 * secret, sealed like vault credentials (to the endpoint's id, so a sealed secret copied onto another
 * record does not open). Every read names the organization: another's endpoint reads as absent.
 */
import type { Collection, Db } from "mongodb";
import type { Page } from "./agents.js";
import type { SecretBox, Sealed } from "./secret-box.js";

interface EndpointDoc {
  _id: string;
  orgId: string;
  url: string;
  description: string | null;
  /** The event types it takes; null: every type. */
  eventTypes: string[] | null;
  enabled: boolean;
  secret: Sealed;
  createdAt: Date;
  updatedAt: Date;
}

export type WebhookEndpointRecord = Omit<EndpointDoc, "secret">;
export type EndpointChanges = Partial<Pick<EndpointDoc, "url" | "description" | "eventTypes" | "enabled">>;

const secretContext = (id: string) => `webhook-endpoint:${id}`;
const withoutSecret = { secret: 0 } as const;

function view(doc: EndpointDoc): WebhookEndpointRecord {
  const { secret: _, ...rest } = doc;
  return rest;
}

export class WebhookEndpointStore {
  private readonly endpoints: Collection<EndpointDoc>;

  constructor(
    db: Db,
    private readonly box: SecretBox | undefined,
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
    return view(doc);
  }

  async get(orgId: string, id: string): Promise<WebhookEndpointRecord | null> {
    return this.endpoints.findOne({ _id: id, orgId }, { projection: withoutSecret });
  }

  async list(orgId: string, opts: { limit: number; offset: number }): Promise<Page<WebhookEndpointRecord>> {
    const docs = await this.endpoints.find({ orgId }, { projection: withoutSecret }).sort({ createdAt: -1, _id: -1 }).skip(opts.offset).limit(opts.limit + 1).toArray();
    return { items: docs.slice(0, opts.limit), hasMore: docs.length > opts.limit };
  }

  /** The organization's enabled endpoints (the filter is applied by the caller). */
  async enabled(orgId: string): Promise<WebhookEndpointRecord[]> {
    return this.endpoints.find({ orgId, enabled: true }, { projection: withoutSecret }).limit(100).toArray();
  }

  async update(orgId: string, id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord | null> {
    // No projection: FerretDB refuses one on findAndModify.
    const doc = await this.endpoints.findOneAndUpdate({ _id: id, orgId }, { $set: { ...changes, updatedAt: new Date() } }, { returnDocument: "after" });
    return doc && view(doc);
  }

  async rotate(orgId: string, id: string, secret: string): Promise<WebhookEndpointRecord | null> {
    if (!this.box) throw new Error("no vault key: webhook secrets cannot be sealed");
    const sealed = this.box.seal(secret, secretContext(id));
    const doc = await this.endpoints.findOneAndUpdate({ _id: id, orgId }, { $set: { secret: sealed, updatedAt: new Date() } }, { returnDocument: "after" });
    return doc && view(doc);
  }

  async remove(orgId: string, id: string): Promise<boolean> {
    return (await this.endpoints.deleteOne({ _id: id, orgId })).deletedCount === 1;
  }

  /** The endpoint's URL and opened secret, for signing a delivery; null when gone, disabled or not openable here. */
  async withSecret(id: string): Promise<{ url: string; secret: string } | null> {
    const doc = await this.endpoints.findOne({ _id: id });
    const secret = doc?.enabled ? this.opened(doc) : null;
    return doc && secret !== null ? { url: doc.url, secret } : null;
  }

  /** The endpoint's opened secret, enabled or not; null when gone or not openable here. */
  async secretOf(id: string): Promise<string | null> {
    const doc = await this.endpoints.findOne({ _id: id });
    return doc ? this.opened(doc) : null;
  }

  private opened(doc: EndpointDoc): string | null {
    return this.box?.canOpen(doc.secret) ? this.box.open<string>(doc.secret, secretContext(doc._id)) : null;
  }
}
