/**
 * Filesystem webhooks (`features.filesystem_webhooks`): each ready deployment with the feature on and a
 * webhook set has its workspace scanned by the sweep, against the manifest of the last scan; the changes
 * found are queued as signed deliveries (`filesystem.changed`, at most 500 changes each). Scanning, not
 * hooking the tools, sees every writer (a background process, an upload) and a change made while no
 * process ran. The first scan after the feature is turned on (or the webhook set) is the baseline.
 */
import { diffManifests, inGroups, type FileChange, type Manifest } from "./domain/workspace-diff.js";
import { AppError, notFound } from "../errors.js";
import { newId } from "../ids.js";
import type { Logger } from "../log.js";
import type { DeploymentWebhookStore, WebhookEndpoint } from "./store/webhooks.js";
import type { DeploymentDoc, DeploymentStore } from "./store/deployments.js";
import type { DeliveryDoc, WebhookDeliveryStore } from "../webhooks/store/webhook-deliveries.js";
import { newWebhookSecret } from "../webhooks/webhook-signature.js";

/** Files a scan lists; past this, changes beyond are not reported (logged once per scan). */
export const MAX_SCANNED_FILES = 10_000;
const CHANGES_PER_DELIVERY = 500;
const SCAN_LEASE_MS = 60_000;

export type WorkspaceScan = (deploymentId: string) => Promise<{ files: [string, number, number][]; truncated: boolean }>;

export interface FilesystemWebhookDeps {
  store: DeploymentStore;
  hooks: DeploymentWebhookStore;
  deliveries: WebhookDeliveryStore;
  scan: WorkspaceScan;
  logger: Logger;
}

const manifestOf = (files: [string, number, number][]): Manifest => new Map(files.map(([p, size, mtime]) => [p, [size, mtime] as const]));

export class FilesystemWebhooks {
  constructor(private readonly deps: FilesystemWebhookDeps) {}

  /** Sets the webhook's URL with a new signing secret, answered once (a second PUT rotates it). */
  async put(d: DeploymentDoc, url: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    if (!this.deps.hooks.canSeal) throw new AppError("unavailable", "webhook secrets cannot be stored: the service has no VAULT_ENCRYPTION_KEY");
    const secret = newWebhookSecret();
    return { endpoint: await this.deps.hooks.put({ deploymentId: d._id, orgId: d.orgId, url }, secret), secret };
  }

  async get(d: DeploymentDoc): Promise<WebhookEndpoint> {
    const endpoint = await this.deps.hooks.get(d._id);
    if (!endpoint) throw notFound("webhook");
    return endpoint;
  }

  async remove(d: DeploymentDoc): Promise<void> {
    if (!(await this.deps.hooks.remove(d._id))) throw notFound("webhook");
  }

  /** Scans every deployment due a scan (read `pageSize` at a time); answers the deliveries queued. */
  async sweep(now: Date, pageSize = 100): Promise<number> {
    let queued = 0;
    for await (const d of this.deps.store.withFeature("filesystemWebhooks", pageSize)) {
      try {
        queued += await this.scanOne(d, now);
      } catch (err) {
        this.deps.logger.warn("a deployment's workspace scan failed", { deploymentId: d._id, err });
      }
    }
    return queued;
  }

  private async scanOne(d: DeploymentDoc, now: Date): Promise<number> {
    const { hooks } = this.deps;
    if (!(await hooks.get(d._id))) return 0;
    const last = await hooks.leaseManifest(d._id, now, SCAN_LEASE_MS);
    if (!last) return 0;
    try {
      return await this.report(d, last, now);
    } catch (err) {
      await hooks.releaseManifest(d._id).catch(() => undefined);
      throw err;
    }
  }

  private async report(d: DeploymentDoc, last: { files: [string, number, number][]; scannedAt: Date | null }, now: Date): Promise<number> {
    const { hooks, deliveries, scan, logger } = this.deps;
    const { files, truncated } = await scan(d._id);
    if (truncated)
      logger.warn("workspace has more files than a scan lists; changes beyond are not reported", { deploymentId: d._id, limit: MAX_SCANNED_FILES });
    const changes = last.scannedAt ? diffManifests(manifestOf(last.files), manifestOf(files)) : [];
    const docs = inGroups(changes, CHANGES_PER_DELIVERY).map((group) => this.delivery(d, group, now));
    // Queued before the manifest moves on: a crash between sends these changes again, never loses them.
    await deliveries.enqueue(docs);
    await hooks.saveManifest(d._id, files, now);
    return docs.length;
  }

  private delivery(d: DeploymentDoc, changes: FileChange[], now: Date): DeliveryDoc {
    const id = newId("msg");
    const body = JSON.stringify({ type: "filesystem.changed", timestamp: now.toISOString(), data: { deployment_id: d._id, changes } });
    return {
      _id: id,
      orgId: d.orgId,
      deploymentId: d._id,
      type: "filesystem.changed",
      body,
      status: "pending",
      attempts: 0,
      nextAttemptAt: now,
      lastError: null,
      lastStatus: null,
      createdAt: now,
      deliveredAt: null,
    };
  }
}
