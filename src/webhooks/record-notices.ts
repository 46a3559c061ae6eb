/**
 * Webhook notices of changes kept in MongoDB records: automation runs that finished and deployments whose
 * status changed, or that were deleted. The write that makes the change marks the record in the same update (a record's own
 * outbox: one document's update is atomic even where FerretDB runs no transactions); this follower queues
 * the notice, then clears the mark. A follower that dies between the two leaves the mark to the next
 * sweep, whose notice is the same message (its id is derived from the change) and is queued once.
 */
import type { AutomationRunStore } from "../automations/store/automation-runs.js";
import type { DeploymentStatus } from "../deployments/domain/deployments.js";
import type { DeploymentDoc, DeploymentStore } from "../deployments/store/deployments.js";
import type { WebhookNotices } from "./webhook-notices.js";

const BATCH = 100;

export interface RecordNoticeDeps {
  runs: AutomationRunStore;
  deployments: DeploymentStore;
  notices: WebhookNotices;
}

export class RecordNotices {
  constructor(private readonly deps: RecordNoticeDeps) {}

  /** Queues the notices of every marked record (up to a batch of each kind); answers how many records. */
  async sweep(): Promise<number> {
    const { runs, deployments, notices } = this.deps;
    let done = 0;
    for (const run of await runs.toNotify(BATCH)) {
      const data = {
        run_id: run._id,
        automation_id: run.automationId,
        trigger: run.trigger,
        status: run.status,
        session_id: run.sessionCreated ? run.sessionId : null,
        error: run.error,
        scheduled_for: run.scheduledFor?.toISOString() ?? null,
      };
      await notices.notify(run.orgId, "automation_run.finished", run._id, data, run.finishedAt ?? run.createdAt);
      await runs.notified(run._id);
      done++;
    }
    for (const d of await deployments.toNotify(BATCH)) {
      await this.notifyDeployment(d, d.notice!);
      await deployments.notified(d._id, d.notice!.at);
      done++;
    }
    return done;
  }

  /**
   * A deployment's teardown, before its record goes (the outbox with it): the change the record still
   * marks, then the deletion, timed by its mark (so a teardown retried after a crash queues the same messages).
   */
  async deploymentDeleted(d: DeploymentDoc): Promise<void> {
    if (d.notice) await this.notifyDeployment(d, d.notice);
    await this.notifyDeployment(d, { status: "deleted", reason: null, at: d.deleting?.at ?? new Date() });
  }

  private notifyDeployment(d: DeploymentDoc, change: { status: DeploymentStatus | "deleted"; reason: string | null; at: Date }): Promise<number> {
    const data = { deployment_id: d._id, customer_id: d.customerId, status: change.status, reason: change.reason };
    return this.deps.notices.notify(d.orgId, "deployment.status_changed", `${d._id}:${change.status}:${change.at.getTime()}`, data, change.at);
  }
}
