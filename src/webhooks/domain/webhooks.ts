/**
 * Webhook rules (pure): the event types an organization's endpoints can subscribe to, the bounds of an
 * endpoint, and the retry schedule of a delivery.
 */
import { WEBHOOK_EVENT_TYPES } from "../../../schemas/webhook-event-type.js";

export { WEBHOOK_EVENT_TYPES };

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Endpoints an organization may have at once. */
export const MAX_WEBHOOK_ENDPOINTS = 20;
/** How long a rotated-out secret keeps signing beside the new one: a day for receivers to move over, as Svix gives. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Whether an endpoint's filter (null: every type) takes events of `type`. */
export function subscribes(filter: readonly string[] | null, type: WebhookEventType): boolean {
  return filter === null || filter.includes(type);
}

/**
 * The delay before retry `attempt` (1-based) of a delivery: doubling from `firstMs`, at most `maxMs`,
 * less up to a fifth at random (`random` in [0, 1)) so retries of many deliveries that failed together
 * (an endpoint down) do not arrive together when it returns.
 */
export function retryDelayMs(attempt: number, firstMs: number, maxMs: number, random: number): number {
  const base = Math.min(maxMs, firstMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - random / 5));
}
