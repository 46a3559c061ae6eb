/**
 * Deployments' webhook notices (`deployment.status_changed`): the status changes their records mark (an
 * outbox the core's `RecordNotices` sweeps), and a deletion, queued by the teardown before the record goes.
 */
import type { DeploymentStatus } from "./domain/deployments.js";
import type { DeploymentDoc, DeploymentStore } from "./store/deployments.js";
import type { NoticeOutbox, OwedNotice } from "../webhooks/record-notices.js";
import type { WebhookNotices } from "../webhooks/webhook-notices.js";

type Change = { status: DeploymentStatus | "deleted"; reason: string | null; at: Date };

export class DeploymentNotices implements NoticeOutbox {
  constructor(
    private readonly store: Pick<DeploymentStore, "toNotify" | "notified">,
    private readonly notices: WebhookNotices,
  ) {}

  async owed(limit: number): Promise<OwedNotice[]> {
    return (await this.store.toNotify(limit)).map((d) => ({ ...notice(d, d.notice!), clear: () => this.store.notified(d._id, d.notice!.at) }));
  }

  /**
   * A deployment's teardown, before its record goes (the outbox with it): the change the record still
   * marks, then the deletion, timed by its mark (so a teardown retried after a crash queues the same messages).
   */
  async deploymentDeleted(d: DeploymentDoc): Promise<void> {
    const changes: Change[] = [...(d.notice ? [d.notice] : []), { status: "deleted", reason: null, at: d.deleting?.at ?? new Date() }];
    for (const change of changes) {
      const n = notice(d, change);
      await this.notices.notify(n.orgId, n.type, n.key, n.data, n.at);
    }
  }
}

function notice(d: DeploymentDoc, change: Change): Omit<OwedNotice, "clear"> {
  return {
    orgId: d.orgId,
    type: "deployment.status_changed",
    key: `${d._id}:${change.status}:${change.at.getTime()}`,
    data: { deployment_id: d._id, customer_id: d.customerId, status: change.status, reason: change.reason },
    at: change.at,
  };
}
