/**
 * Webhook notices of changes kept in MongoDB records: automation runs that finished here, and whatever
 * other records composition hands in (deployments whose status changed). The write that makes the change
 * marks the record in the same update (a record's own outbox: one document's update is atomic even where
 * FerretDB runs no transactions); this follower queues the notice, then clears the mark. A follower that
 * dies between the two leaves the mark to the next sweep, whose notice is the same message (its key is
 * derived from the change) and is queued once.
 */
import type { AutomationRunStore } from "../automations/store/automation-runs.js";
import type { WebhookEventType } from "./domain/webhooks.js";
import type { WebhookNotices } from "./webhook-notices.js";

const BATCH = 100;

/** A notice a record owes: what `WebhookNotices.notify` queues, and how to clear the record's mark once it is queued. */
export interface OwedNotice {
  orgId: string;
  type: WebhookEventType;
  /** The change the notice reports, the same at every retry. */
  key: string;
  data: Record<string, unknown>;
  at: Date;
  clear(): Promise<void>;
}

/** Records that emit notices: a kind of record whose writes mark the notice they owe. */
export interface NoticeOutbox {
  /** Up to `limit` marked records' notices. */
  owed(limit: number): Promise<OwedNotice[]>;
}

/** Finished automation runs, marked by the write that finished them. */
export function automationRunOutbox(runs: AutomationRunStore): NoticeOutbox {
  return {
    async owed(limit) {
      return (await runs.toNotify(limit)).map((run) => ({
        orgId: run.orgId,
        type: "automation_run.finished",
        key: run._id,
        data: {
          run_id: run._id,
          automation_id: run.automationId,
          trigger: run.trigger,
          status: run.status,
          session_id: run.sessionCreated ? run.sessionId : null,
          error: run.error,
          scheduled_for: run.scheduledFor?.toISOString() ?? null,
        },
        at: run.finishedAt ?? run.createdAt,
        clear: () => runs.notified(run._id),
      }));
    },
  };
}

export class RecordNotices {
  constructor(
    private readonly notices: WebhookNotices,
    private readonly outboxes: NoticeOutbox[],
  ) {}

  /** Queues the notices of every marked record (up to a batch of each kind); answers how many records. */
  async sweep(): Promise<number> {
    let done = 0;
    for (const outbox of this.outboxes) {
      for (const owed of await outbox.owed(BATCH)) {
        await this.notices.notify(owed.orgId, owed.type, owed.key, owed.data, owed.at);
        await owed.clear();
        done++;
      }
    }
    return done;
  }
}
