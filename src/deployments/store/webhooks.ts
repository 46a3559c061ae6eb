/**
 * A deployment's filesystem webhook (its URL and signing secret, sealed like vault credentials) and the
 * workspace manifest its changes are found against. One record each per deployment, by `_id`.
 */
import type { Collection, Db } from "mongodb";
import type { RecordTurns } from "../../mongo/record-turns.js";
import type { SecretBox, Sealed } from "../../vaults/store/secret-box.js";

interface EndpointDoc {
  _id: string;
  orgId: string;
  url: string;
  secret: Sealed;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookEndpoint {
  deploymentId: string;
  orgId: string;
  url: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A file of a manifest: path, size, modification time (ms). Sub-documents in an array: paths are not valid field names, and FerretDB stores no nested arrays. */
interface ManifestEntry {
  p: string;
  s: number;
  m: number;
}

/** Made by the first lease with the lease alone: `files` and `scannedAt` come with the first scan (absent: none yet). */
interface ManifestDoc {
  _id: string;
  files?: ManifestEntry[];
  scannedAt?: Date | null;
  leaseUntil: Date | null;
}

const secretContext = (deploymentId: string) => `deployment-webhook:${deploymentId}`;

export class DeploymentWebhookStore {
  private readonly endpoints: Collection<EndpointDoc>;
  private readonly manifests: Collection<ManifestDoc>;

  constructor(
    db: Db,
    private readonly box: SecretBox | undefined,
    /** Lease takers of one manifest take turns: FerretDB checks the lease's filter and sets it in two steps. */
    private readonly turns: RecordTurns,
  ) {
    this.endpoints = db.collection<EndpointDoc>("deployment_webhooks");
    this.manifests = db.collection<ManifestDoc>("workspace_manifests");
  }

  get canSeal(): boolean {
    return this.box !== undefined;
  }

  /** Sets the endpoint; the secret is sealed to this deployment. */
  async put(endpoint: Omit<WebhookEndpoint, "createdAt" | "updatedAt">, secret: string): Promise<WebhookEndpoint> {
    if (!this.box) throw new Error("no vault key: webhook secrets cannot be sealed");
    const now = new Date();
    const sealed = this.box.seal(secret, secretContext(endpoint.deploymentId));
    const doc = await this.endpoints.findOneAndUpdate(
      { _id: endpoint.deploymentId },
      { $set: { orgId: endpoint.orgId, url: endpoint.url, secret: sealed, updatedAt: now }, $setOnInsert: { createdAt: now } },
      { upsert: true, returnDocument: "after" },
    );
    return view(doc!);
  }

  async get(deploymentId: string): Promise<WebhookEndpoint | null> {
    const doc = await this.endpoints.findOne({ _id: deploymentId });
    return doc && view(doc);
  }

  /** The endpoint with its secret opened, for signing a delivery; null when gone or not openable here. */
  async withSecret(deploymentId: string): Promise<(WebhookEndpoint & { secret: string }) | null> {
    const doc = await this.endpoints.findOne({ _id: deploymentId });
    if (!doc || !this.box?.canOpen(doc.secret)) return null;
    return { ...view(doc), secret: this.box.open<string>(doc.secret, secretContext(deploymentId)) };
  }

  async remove(deploymentId: string): Promise<boolean> {
    await this.manifests.deleteOne({ _id: deploymentId });
    return (await this.endpoints.deleteOne({ _id: deploymentId })).deletedCount === 1;
  }

  /** Takes the deployment's scan for `ms`; the manifest as last written, or null when another holds it. */
  async leaseManifest(deploymentId: string, now: Date, ms: number): Promise<{ files: [string, number, number][]; scannedAt: Date | null } | null> {
    try {
      const doc = await this.turns(deploymentId, () =>
        this.manifests.findOneAndUpdate(
          { _id: deploymentId, $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }] },
          // No `$setOnInsert` of the empty manifest: FerretDB v1 drops a `$setOnInsert` of null or [] (MongoDB writes it), so absent is none.
          { $set: { leaseUntil: new Date(now.getTime() + ms) } },
          { upsert: true, returnDocument: "after" },
        ),
      );
      return doc && { files: (doc.files ?? []).map((f): [string, number, number] => [f.p, f.s, f.m]), scannedAt: doc.scannedAt ?? null };
    } catch (err) {
      // The upsert of a held lease collides with the record itself: another holds it.
      if ((err as { code?: number }).code === 11000) return null;
      throw err;
    }
  }

  async saveManifest(deploymentId: string, files: [string, number, number][], at: Date): Promise<void> {
    const entries = files.map(([p, s, m]) => ({ p, s, m }));
    await this.manifests.updateOne({ _id: deploymentId }, { $set: { files: entries, scannedAt: at, leaseUntil: null } });
  }

  /** Gives the scan back without moving the manifest (the scan failed; the next one retries). */
  async releaseManifest(deploymentId: string): Promise<void> {
    await this.manifests.updateOne({ _id: deploymentId }, { $set: { leaseUntil: null } });
  }
}

function view(doc: EndpointDoc): WebhookEndpoint {
  return { deploymentId: doc._id, orgId: doc.orgId, url: doc.url, createdAt: doc.createdAt, updatedAt: doc.updatedAt };
}
