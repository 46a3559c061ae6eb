/**
 * Queues an organization's webhook notices: one delivery per enabled endpoint that takes the event's
 * type, with the body Standard Webhooks suggests (`type`, `timestamp`, `data`). A delivery's id (its
 * `webhook-id`) is derived from the endpoint and the change the notice reports (`key`), so a notice
 * queued again for the same change (its writer retried after a crash) is the same message, queued once.
 */
import { createHash } from "node:crypto";
import { subscribes, type WebhookEventType } from "../domain/webhooks.js";
import type { DeliveryDoc, WebhookDeliveryStore } from "../store/webhook-deliveries.js";
import type { WebhookEndpointStore } from "../store/webhook-endpoints.js";

const messageId = (endpointId: string, type: string, key: string) => `msg_${createHash("sha256").update(`${endpointId}\n${type}\n${key}`).digest("hex").slice(0, 32)}`;

export class WebhookNotices {
  constructor(
    private readonly endpoints: WebhookEndpointStore,
    private readonly deliveries: WebhookDeliveryStore,
  ) {}

  /** Queues the notice for the organization's endpoints that take it; answers how many. */
  async notify(orgId: string, type: WebhookEventType, key: string, data: Record<string, unknown>, at: Date): Promise<number> {
    const targets = (await this.endpoints.enabled(orgId)).filter((e) => subscribes(e.eventTypes, type));
    const body = JSON.stringify({ type, timestamp: at.toISOString(), data });
    const docs = targets.map(
      (e): DeliveryDoc => ({ _id: messageId(e._id, type, key), orgId, endpointId: e._id, type, body, status: "pending", attempts: 0, nextAttemptAt: at, lastError: null, lastStatus: null, createdAt: at, deliveredAt: null }),
    );
    await this.deliveries.enqueue(docs);
    return docs.length;
  }
}
