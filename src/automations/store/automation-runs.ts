/**
 * Automation runs: one document per occurrence (scheduled or manual), opened before its session is
 * created and finished once. A scheduled occurrence's `_id` is made of the automation and the scheduled
 * time, and its session id is chosen when it opens, so a scheduler that retries an occurrence (after a
 * crash, or a lapsed claim) finds the same run and the same session: the occurrence fires once.
 */
import type { Collection, Db } from "mongodb";
import type { OccurrenceOutcome, RunStatus } from "../domain/automations.js";
import type { Page } from "../../agents/store/agents.js";
import { isDuplicateKey } from "../../mongo/mongo.js";

export interface RunDoc {
  _id: string;
  orgId: string;
  automationId: string;
  trigger: "schedule" | "manual";
  /** The occurrence's scheduled time (null for a manual run). */
  scheduledFor: Date | null;
  status: RunStatus;
  /** Chosen when the run opens; the session exists once the run succeeded (or failed after creating it). */
  sessionId: string;
  /** Whether the session was created (a failed run may have none). */
  sessionCreated: boolean;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** Set by the write that finishes the run, cleared once its webhook notice is queued (the notice's outbox). */
  notify?: true;
}

/** The run id of the occurrence of `automationId` scheduled at `at`. */
export const occurrenceRunId = (automationId: string, at: Date) => `run_${automationId.replace(/^aut_/, "")}_${at.getTime().toString(36)}`;

export class AutomationRunStore {
  private readonly runs: Collection<RunDoc>;

  constructor(db: Db) {
    this.runs = db.collection<RunDoc>("automation_runs");
  }

  /** Opens the run, or answers the one already open under its id (the same occurrence, retried); `fresh` when this call opened it. */
  async open(run: RunDoc): Promise<{ run: RunDoc; fresh: boolean }> {
    try {
      await this.runs.insertOne(run);
      return { run, fresh: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const existing = await this.runs.findOne({ _id: run._id });
      if (!existing) throw err;
      return { run: existing, fresh: false };
    }
  }

  /** Finishes a pending run once; answers the run as finished (by this call or an earlier one). */
  async finish(run: RunDoc, outcome: OccurrenceOutcome, now: Date): Promise<RunDoc | null> {
    const set = {
      status: outcome.status,
      sessionCreated: outcome.sessionId !== null,
      error: outcome.status === "failed" ? outcome.error : null,
      finishedAt: now,
    };
    const { modifiedCount } = await this.runs.updateOne({ _id: run._id, status: "pending" }, { $set: { ...set, notify: true } });
    return modifiedCount === 1 ? { ...run, ...set } : this.runs.findOne({ _id: run._id });
  }

  /** Finished runs whose webhook notice is not queued yet, oldest first. */
  async toNotify(limit: number): Promise<RunDoc[]> {
    return this.runs.find({ notify: true }).sort({ finishedAt: 1 }).limit(limit).toArray();
  }

  /** The run's notice is queued (a run finishes once: nothing can have marked it again). */
  async notified(id: string): Promise<void> {
    await this.runs.updateOne({ _id: id }, { $unset: { notify: "" } });
  }

  /** The automation's runs, newest first; `withSession`: only those that created their session. */
  async list(automationId: string, opts: { limit: number; offset: number; withSession?: boolean }): Promise<Page<RunDoc>> {
    const query = opts.withSession ? { automationId, sessionCreated: true } : { automationId };
    const docs = await this.runs
      .find(query)
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit), hasMore: docs.length > opts.limit };
  }

  async deleteFor(automationId: string): Promise<void> {
    await this.runs.deleteMany({ automationId });
  }
}
