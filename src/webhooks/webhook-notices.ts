/**
 * Queues an organization's webhook notices: one delivery per enabled endpoint that takes the event's
 * type, with the body Standard Webhooks suggests (`type`, `timestamp`, `data`). A delivery's id (its
 * `webhook-id`) is derived from the endpoint and the change the notice reports (`key`), so a notice
 * queued again for the same change (its writer retried after a crash) is the same message, queued once.
 */
import { createHash } from "node:crypto";
import { subscribes, type WebhookEventType } from "./domain/webhooks.js";
import { Lru } from "../lru.js";
import type { OrgEpochs } from "../redis/org-epochs.js";
import type { DeliveryDoc, WebhookDeliveryStore } from "./store/webhook-deliveries.js";
import type { WebhookEndpointStore } from "./store/webhook-endpoints.js";

const messageId = (endpointId: string, type: string, key: string) =>
  `msg_${createHash("sha256").update(`${endpointId}\n${type}\n${key}`).digest("hex").slice(0, 32)}`;

/** An enabled endpoint, as far as choosing where a notice goes. */
interface Target {
  id: string;
  eventTypes: string[] | null;
}

/** Organizations whose targets a process keeps. */
const KEPT_ORGANIZATIONS = 10_000;
/**
 * How long kept targets are used at most: their epoch bounds staleness when a writer bumps it, this when
 * a writer died between its MongoDB write and the bump.
 */
const KEPT_MS = 60_000;

export class WebhookNotices {
  private readonly kept = new Lru<string, { epoch: string; at: number; targets: Target[] }>(KEPT_ORGANIZATIONS);

  /**
   * `epochs` is bumped after each change to an organization's endpoints: a session's every status change
   * notifies, so the targets are read from MongoDB once per change instead of once per notice.
   */
  constructor(
    private readonly endpoints: WebhookEndpointStore,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly epochs: OrgEpochs,
    private readonly now: () => number = Date.now,
  ) {}

  /** Queues the notice for the organization's endpoints that take it; answers how many. */
  async notify(orgId: string, type: WebhookEventType, key: string, data: Record<string, unknown>, at: Date): Promise<number> {
    const targets = (await this.targetsOf(orgId)).filter((e) => subscribes(e.eventTypes, type));
    const body = JSON.stringify({ type, timestamp: at.toISOString(), data });
    const docs = targets.map((e): DeliveryDoc => ({
      _id: messageId(e.id, type, key),
      orgId,
      endpointId: e.id,
      type,
      body,
      status: "pending",
      attempts: 0,
      nextAttemptAt: at,
      lastError: null,
      lastStatus: null,
      createdAt: at,
      deliveredAt: null,
    }));
    await this.deliveries.enqueue(docs);
    return docs.length;
  }

  /** The epoch is read before the endpoints: kept targets are never older than the epoch they are kept under. */
  private async targetsOf(orgId: string): Promise<Target[]> {
    const epoch = await this.epochs.current(orgId);
    const kept = this.kept.get(orgId);
    if (kept && kept.epoch === epoch && this.now() - kept.at < KEPT_MS) return kept.targets;
    const at = this.now();
    const targets = (await this.endpoints.enabled(orgId)).map((e) => ({ id: e._id, eventTypes: e.eventTypes }));
    this.kept.set(orgId, { epoch, at, targets });
    return targets;
  }
}
