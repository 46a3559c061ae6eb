/**
 * Sends queued webhook deliveries: signed (Standard Webhooks), through the outbound guard, with a time
 * limit; a 2xx answer delivers, anything else is retried with doubling, jittered delays until the last
 * attempt. Deployments' filesystem webhooks and organizations' endpoints share the queue and this sender.
 */
import { retryDelayMs } from "./domain/webhooks.js";
import type { Logger } from "../log.js";
import type { DeliveryDoc, WebhookDeliveryStore } from "./store/webhook-deliveries.js";
import { outboundRefusal, type Fetch } from "../outbound/outbound.js";
import { webhookHeaders } from "./webhook-signature.js";
import { failed, SpanKind, withSpan, withTraceHeaders, type Span } from "../telemetry/tracing.js";

export interface SenderOptions {
  maxAttempts: number;
  firstRetryMs: number;
  maxRetryMs: number;
  timeoutMs: number;
}

/** Where a delivery goes and the secrets it is signed with; null when its endpoint is gone (or disabled, or its secret cannot be opened here). */
export type DeliveryTarget = (d: DeliveryDoc) => Promise<{ url: string; secrets: string[] } | null>;

export class WebhookSender {
  constructor(
    private readonly deliveries: WebhookDeliveryStore,
    private readonly target: DeliveryTarget,
    private readonly fetch: Fetch,
    private readonly logger: Logger,
    private readonly opts: SenderOptions,
  ) {}

  /** Sends due deliveries, one at a time, up to `limit`; answers how many were attempted. */
  async sweep(now: Date, limit = 50): Promise<number> {
    let sent = 0;
    for (; sent < limit; sent++) {
      // Claimed past the attempt's time limit: a sender that dies mid-attempt leaves it to another.
      const at = new Date(Math.max(now.getTime(), Date.now()));
      const due = await this.deliveries.claimDue(at, new Date(at.getTime() + this.opts.timeoutMs * 2));
      if (!due) break;
      await this.attempt(due);
    }
    return sent;
  }

  /** One attempt in its CLIENT span, which the request's `traceparent` names; the endpoint's host only (its URL may carry a token). */
  private attempt(d: DeliveryDoc): Promise<void> {
    const attributes = { "http.request.method": "POST", "agent_sessions.webhook.delivery.id": d._id, "agent_sessions.webhook.attempt": d.attempts + 1 };
    return withSpan("webhook.deliver", attributes, (span) => this.deliver(d, span), { kind: SpanKind.CLIENT });
  }

  private async deliver(d: DeliveryDoc, span: Span): Promise<void> {
    const endpoint = await this.target(d);
    if (!endpoint) {
      await this.deliveries.attemptFailed(d._id, "the webhook is gone or disabled, or its secret cannot be opened here", null, null);
      return;
    }
    const now = new Date();
    let status: number | null = null;
    let error: string;
    span.setAttribute("server.address", new URL(endpoint.url).hostname);
    try {
      const res = await this.fetch(endpoint.url, {
        method: "POST",
        headers: withTraceHeaders(webhookHeaders(endpoint.secrets, d._id, d.body, now)),
        body: d.body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        redirect: "manual",
      });
      await res.body?.cancel();
      status = res.status;
      span.setAttribute("http.response.status_code", status);
      if (res.status >= 200 && res.status < 300) {
        await this.deliveries.delivered(d._id, res.status, new Date());
        return;
      }
      error = `the endpoint answered HTTP ${res.status}`;
    } catch (err) {
      const refused = outboundRefusal(err);
      error = refused ? `refused: ${refused.message}` : "the endpoint did not answer";
    }
    failed(span, new Error(error));
    const attempt = d.attempts + 1;
    const retryAt =
      attempt < this.opts.maxAttempts ? new Date(Date.now() + retryDelayMs(attempt, this.opts.firstRetryMs, this.opts.maxRetryMs, Math.random())) : null;
    await this.deliveries.attemptFailed(d._id, error, status, retryAt);
    if (!retryAt)
      this.logger.warn("webhook delivery failed for good", {
        deploymentId: d.deploymentId,
        endpointId: d.endpointId,
        deliveryId: d._id,
        attempts: attempt,
        error,
      });
  }
}
