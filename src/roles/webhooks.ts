/**
 * Organizations' webhooks in the composition root: their endpoints and the delivery queue they share
 * with deployments' filesystem webhooks, and the session status projection that queues session notices
 * (`session-webhooks.ts`) before its outbox mark is cleared.
 */
import type { Db } from "mongodb";
import type { Logger } from "../log.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { Intents } from "../sessions/redis/intents.js";
import type { Locks } from "../redis/locks.js";
import type { OrgEpochs } from "../redis/org-epochs.js";
import { NotifyingProjection } from "../webhooks/session-webhooks.js";
import { StatusProjector } from "../sessions/status-projector.js";
import { WebhookEndpoints } from "../webhooks/webhook-endpoints.js";
import { WebhookNotices } from "../webhooks/webhook-notices.js";
import type { DeliveryTarget } from "../webhooks/webhook-sender.js";
import type { DeploymentWebhookStore } from "../deployments/store/webhooks.js";
import type { SecretBox } from "../vaults/store/secret-box.js";
import type { SessionStore } from "../sessions/store/sessions.js";
import { WebhookDeliveryStore } from "../webhooks/store/webhook-deliveries.js";
import { WebhookEndpointStore } from "../webhooks/store/webhook-endpoints.js";

/** Organizations' webhooks: their endpoints' store and service, the delivery queue (shared with deployments' filesystem webhooks), the notices. */
export interface WebhookParts {
  endpoints: WebhookEndpointStore;
  deliveries: WebhookDeliveryStore;
  notices: WebhookNotices;
  service: WebhookEndpoints;
}

function buildWebhooks(db: Db, box: SecretBox | undefined, locks: Locks, epochs: OrgEpochs): WebhookParts {
  const endpoints = new WebhookEndpointStore(db, box, epochs);
  // One claim at a time across processes: FerretDB's filtered update is not atomic, and a claim is quick.
  const deliveries = new WebhookDeliveryStore(db, (claim) => locks.withRecord("webhook_deliveries", "claims", claim));
  const notices = new WebhookNotices(endpoints, deliveries, epochs);
  const service = new WebhookEndpoints(endpoints, deliveries, (orgId, work) => locks.withRecord("webhook_endpoints", orgId, work));
  return { endpoints, deliveries, notices, service };
}

export interface ProjectionParts {
  db: Db;
  box: SecretBox | undefined;
  locks: Locks;
  sessionStore: SessionStore;
  eventLog: EventLog;
  intents: Intents;
  log: Logger;
  /** Bumped on each change to an organization's webhook endpoints. */
  webhookEpochs: OrgEpochs;
}

/** The webhooks, and the session status projection (its writer and its records) that queues the session notices. */
export function buildProjection(p: ProjectionParts): { webhooks: WebhookParts; records: NotifyingProjection; projector: StatusProjector } {
  const webhooks = buildWebhooks(p.db, p.box, p.locks, p.webhookEpochs);
  const records = new NotifyingProjection(p.sessionStore, p.eventLog, webhooks.notices);
  return { webhooks, records, projector: new StatusProjector(records, p.intents, (ids) => p.eventLog.summaries(ids), p.log) };
}

/** Where a delivery goes: its deployment's filesystem webhook, or its organization's endpoint. */
export function deliveryTarget(deploymentHooks: DeploymentWebhookStore, endpoints: WebhookEndpointStore): DeliveryTarget {
  return async (d) => {
    if (d.endpointId) return endpoints.withSecrets(d.endpointId);
    const hook = d.deploymentId ? await deploymentHooks.withSecret(d.deploymentId) : null;
    return hook && { url: hook.url, secrets: [hook.secret] };
  };
}
