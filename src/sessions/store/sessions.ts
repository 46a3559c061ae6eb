/**
 * Session records in MongoDB: the durable facts of a session (agent version, subject, role, title,
 * metadata, usage). Its runtime status lives in Redis beside the event log; `status` here is a
 * projection kept for list filters.
 */
import type { Collection, Db, Filter } from "mongodb";
import type { FromSchemas } from "../../../schemas/index.js";
import type { sessionsListQuerySchema } from "../../../schemas/sessions-list-query.js";
import type { Page } from "../../agents/store/agents.js";
import { fromStored, projected, storedMetadata, toStored, usageProjected, type SessionDoc, type StateProjection, type StoredSession } from "./session-shape.js";

export type { SessionDoc, StateProjection } from "./session-shape.js";

export interface SessionFilter {
  agentId?: string;
  subjectId?: string;
  /** The statuses a list may filter by: the query's `status`, or `waiting_on_human` from its `waitingOnHuman`. */
  status?: NonNullable<FromSchemas<typeof sessionsListQuerySchema>["status"]> | "waiting_on_human";
}

/**
 * Every read and write names one record by `_id` alone; one of another organization reads as absent.
 * Checking the organization before a write is safe because a record's organization never changes and
 * ids are never reused.
 */
/** What a projection writes by `$max`: each part as of its state version (the later version stays). */
function projectionMax(p: StateProjection) {
  return {
    ...(p.status ? { projected: projected(p.status.version, p.status.status) } : {}),
    ...(p.usage ? { usageProjected: usageProjected(p.usage.version, p.usage.usage) } : {}),
  };
}

export class SessionStore {
  private readonly sessions: Collection<StoredSession>;

  constructor(db: Db) {
    this.sessions = db.collection<StoredSession>("sessions");
  }

  async insert(doc: SessionDoc): Promise<void> {
    await this.sessions.insertOne(toStored(doc));
  }

  async get(orgId: string, id: string): Promise<SessionDoc | null> {
    const doc = await this.byId(id);
    return doc?.orgId === orgId ? doc : null;
  }

  /** For workers, which act on a session by id alone. */
  async byId(id: string): Promise<SessionDoc | null> {
    return fromStored(await this.sessions.findOne({ _id: id }));
  }

  /**
   * A page of the organization's sessions whose record status matches the filter (default: not
   * archived); `changing` sessions (records a transition is changing) are taken whatever their record
   * says, for the caller to match by their runtime status.
   */
  async list(orgId: string, filter: SessionFilter, opts: { limit: number; offset: number }, changing: string[] = []): Promise<Page<SessionDoc>> {
    const query: Filter<StoredSession> = { orgId };
    if (filter.agentId) query.agentId = filter.agentId;
    if (filter.subjectId) query.subjectId = filter.subjectId;
    const status = filter.status ?? { $ne: "archived" as const };
    if (changing.length > 0) query.$or = [{ "projected.status": status }, { _id: { $in: changing } }];
    else query["projected.status"] = status;
    const docs = await this.sessions
      .find(query)
      .sort({ createdAt: -1, _id: -1 })
      .skip(opts.offset)
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit).map((d) => fromStored(d)!), hasMore: docs.length > opts.limit };
  }

  /** The agent's sessions, newest first, before the id a previous page ended at (ids sort by creation time). */
  async pageOfAgent(orgId: string, agentId: string, opts: { limit: number; before?: string }): Promise<{ items: SessionDoc[]; more: boolean }> {
    const query: Filter<StoredSession> = { orgId, agentId };
    if (opts.before !== undefined) query._id = { $lt: opts.before };
    const docs = await this.sessions
      .find(query)
      .sort({ _id: -1 })
      .limit(opts.limit + 1)
      .toArray();
    return { items: docs.slice(0, opts.limit).map((d) => fromStored(d)!), more: docs.length > opts.limit };
  }

  /** The agent's most recently changed sessions (a status change, an update), latest first. */
  async recentlyActive(orgId: string, agentId: string, limit: number): Promise<SessionDoc[]> {
    const docs = await this.sessions.find({ orgId, agentId }).sort({ updatedAt: -1 }).limit(limit).toArray();
    return docs.map((d) => fromStored(d)!);
  }

  async update(
    orgId: string,
    id: string,
    set: Partial<Pick<SessionDoc, "title" | "titleSource" | "yoloMode" | "metadata" | "budgetUsd">>,
  ): Promise<SessionDoc | null> {
    if (!(await this.get(orgId, id))) return null;
    const stored = set.metadata ? { ...set, metadata: storedMetadata(set.metadata) } : set;
    return fromStored(await this.sessions.findOneAndUpdate({ _id: id }, { $set: { ...stored, updatedAt: new Date() } }, { returnDocument: "after" }));
  }

  /**
   * Writes the status and the usage total, each as of its state version, unless the record already
   * reflects that version or a later one: whichever process writes last, an older state never rolls it back.
   */
  async projectState(id: string, p: StateProjection): Promise<void> {
    await this.sessions.updateOne({ _id: id }, { $max: projectionMax(p), $set: { updatedAt: new Date() } });
  }

  /** `projectState` of several sessions in one command (one update each, in no particular order); resolves with them all. */
  async projectStates(batch: readonly { sessionId: string; projection: StateProjection }[]): Promise<ReadonlySet<string>> {
    const written = new Set(batch.map((b) => b.sessionId));
    if (batch.length === 0) return written;
    await this.sessions.bulkWrite(
      batch.map(({ sessionId, projection }) => ({
        updateOne: { filter: { _id: sessionId }, update: { $max: projectionMax(projection), $set: { updatedAt: new Date() } } },
      })),
      { ordered: false },
    );
    return written;
  }

  /**
   * Records a generated title; true when the session had no title when it landed (the one writer that
   * then announces it). A caller's title, set before or after, is shown instead.
   */
  async setGeneratedTitle(id: string, title: string): Promise<boolean> {
    // No projection: FerretDB v1 refuses one on findAndModify.
    const before = await this.sessions.findOneAndUpdate({ _id: id }, { $set: { generatedTitle: title, updatedAt: new Date() } }, { returnDocument: "before" });
    return before !== null && before.title === null && !before.generatedTitle;
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    if (!(await this.get(orgId, id))) return false;
    return (await this.sessions.deleteOne({ _id: id })).deletedCount === 1;
  }

  async hasSessions(orgId: string, agentId: string): Promise<boolean> {
    return (await this.sessions.findOne({ orgId, agentId }, { projection: { _id: 1 } })) !== null;
  }
}
