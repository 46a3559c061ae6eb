/**
 * Automation records in MongoDB: the truth of each automation (its schedule, state, next run time and
 * counters). Every read by id is by `_id` alone. Writers of the same record never overwrite each other:
 * a change is written over the revision it was computed from, and a scheduler's writes are conditional on
 * the occurrence they settle (counted once per scheduled time, advanced only from that time).
 */
import type { Collection, Db, Filter } from "mongodb";
import type { AutomationFacts, RunSummary } from "../domain/automations.js";
import type { Schedule } from "../domain/schedule.js";
import type { Page } from "../../agents/store/agents.js";

export interface AutomationDoc extends AutomationFacts {
  _id: string;
  orgId: string;
  agentId: string;
  subjectId: string;
  name: string | null;
  prompt: string;
  skills: string[];
  schedule: Schedule;
  runCount: number;
  failedRunCount: number;
  lastRun: RunSummary | null;
  /** Bumped by every write; a change is written only over the revision it read. */
  revision: number;
  /** Set when the agent belongs to a deployment: its `automations` feature decides whether runs happen. */
  deploymentId?: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields a change writes. */
export type AutomationSet = Partial<Pick<AutomationDoc, "name" | "prompt" | "skills" | "schedule" | "repeat" | "enabled" | "paused" | "nextRunAt">>;

export interface AutomationScope {
  agentId: string;
  subjectId?: string;
}

export class AutomationStore {
  private readonly automations: Collection<AutomationDoc>;

  constructor(db: Db) {
    this.automations = db.collection<AutomationDoc>("automations");
  }

  async insert(doc: AutomationDoc): Promise<void> {
    await this.automations.insertOne(doc);
  }

  byId(id: string): Promise<AutomationDoc | null> {
    return this.automations.findOne({ _id: id });
  }

  /** The automation when it is the organization's, under this agent and subject. */
  async get(orgId: string, agentId: string, subjectId: string, id: string): Promise<AutomationDoc | null> {
    const doc = await this.byId(id);
    return doc && doc.orgId === orgId && doc.agentId === agentId && doc.subjectId === subjectId ? doc : null;
  }

  async list(orgId: string, scope: AutomationScope, opts: { limit: number; offset: number }): Promise<Page<AutomationDoc>> {
    const query: Filter<AutomationDoc> = { orgId, agentId: scope.agentId };
    if (scope.subjectId !== undefined) query.subjectId = scope.subjectId;
    const docs = await this.automations
      .find(query)
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit), hasMore: docs.length > opts.limit };
  }

  /** Whether the organization has any automation under the agent (of any subject). */
  async anyUnder(orgId: string, agentId: string): Promise<boolean> {
    return (await this.automations.countDocuments({ orgId, agentId }, { limit: 1 })) > 0;
  }

  /** How many the subject has under the agent, counting up to `cap`. */
  countForSubject(orgId: string, agentId: string, subjectId: string, cap: number): Promise<number> {
    return this.automations.countDocuments({ orgId, agentId, subjectId }, { limit: cap });
  }

  /** Writes a change over `revision`; null when another write came first (re-read and recompute). */
  async change(id: string, revision: number, set: AutomationSet, now: Date): Promise<AutomationDoc | null> {
    return this.automations.findOneAndUpdate({ _id: id, revision }, { $set: { ...set, updatedAt: now }, $inc: { revision: 1 } }, { returnDocument: "after" });
  }

  /**
   * Counts the occurrence scheduled at `scheduled` once, whoever settles it and however often: a retry
   * after a crash finds it counted. Answers the record after the count (null: the record is gone).
   */
  async countOccurrence(id: string, scheduled: Date, run: RunSummary, counts: Record<string, number>): Promise<AutomationDoc | null> {
    const counted = await this.automations.findOneAndUpdate(
      { _id: id, lastOccurrenceAt: { $ne: scheduled } },
      { $set: { lastOccurrenceAt: scheduled, lastRun: run, updatedAt: run.at }, $inc: { ...counts, revision: 1 } },
      { returnDocument: "after" },
    );
    return counted ?? this.byId(id);
  }

  /**
   * The common path in one write: counts the occurrence and moves the next run time on, when nothing
   * wrote the record since it was read at `revision` and the occurrence is not counted yet (else null:
   * count and advance apart, each once).
   */
  async settleOccurrence(
    id: string,
    revision: number,
    scheduled: Date,
    run: RunSummary,
    counts: Record<string, number>,
    next: Date | null,
  ): Promise<AutomationDoc | null> {
    return this.automations.findOneAndUpdate(
      { _id: id, revision, lastOccurrenceAt: { $ne: scheduled } },
      { $set: { lastOccurrenceAt: scheduled, lastRun: run, nextRunAt: next, updatedAt: run.at }, $inc: { ...counts, revision: 1 } },
      { returnDocument: "after" },
    );
  }

  /** Moves the next run time on from `scheduled`, unless a change moved it already; answers the record as it now is. */
  async advance(id: string, scheduled: Date, next: Date | null, now: Date): Promise<AutomationDoc | null> {
    const moved = await this.automations.findOneAndUpdate(
      { _id: id, nextRunAt: scheduled },
      { $set: { nextRunAt: next, updatedAt: now }, $inc: { revision: 1 } },
      { returnDocument: "after" },
    );
    return moved ?? this.byId(id);
  }

  /** Counts a manual run. */
  async countManual(id: string, run: RunSummary, counts: Record<string, number>): Promise<void> {
    await this.automations.updateOne({ _id: id }, { $set: { lastRun: run, updatedAt: run.at }, $inc: { ...counts, revision: 1 } });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.automations.deleteOne({ _id: id })).deletedCount === 1;
  }

  /** Every scheduled automation's id and next run time, for the repair of the due set. */
  async *scheduled(): AsyncGenerator<{ id: string; at: number }> {
    for await (const doc of this.automations.find({ nextRunAt: { $ne: null } }, { projection: { _id: 1, nextRunAt: 1 } })) {
      if (doc.nextRunAt) yield { id: doc._id, at: doc.nextRunAt.getTime() };
    }
  }
}
