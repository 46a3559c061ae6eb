/**
 * Session records in MongoDB: the durable facts of a session (agent version, subject, role, title,
 * metadata, usage). Its runtime status lives in Redis beside the event log; `status` here is a
 * projection kept for list filters.
 */
import type { Collection, Db, Filter } from "mongodb";
import type { FromSchemas } from "../../schemas/index.js";
import type { sessionsListQuerySchema } from "../../schemas/sessions-list-query.js";
import type { Metadata } from "../domain/agent-config.js";
import type { Usage } from "../domain/events.js";
import type { SessionStatus } from "../domain/session-state.js";
import type { Page } from "./agents.js";
import { decode, encode } from "./caller-json.js";

export interface SessionDoc {
  _id: string;
  orgId: string;
  agentId: string;
  agentVersion: number;
  subjectId: string;
  role: string | null;
  title: string | null;
  titleSource: "caller" | "generated" | null;
  yoloMode: boolean;
  metadata: Metadata;
  /** Projection of the runtime status, for list filters; `statusVersion` is the state version it reflects. */
  status: SessionStatus;
  statusVersion: number;
  usage: Usage | null;
  /** The last turn whose usage was added to `usage`; makes adding idempotent. */
  usageTurn: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SessionFilter {
  agentId?: string;
  subjectId?: string;
  /** The statuses a list may filter by (`waiting_on_human` is not one). */
  status?: NonNullable<FromSchemas<typeof sessionsListQuerySchema>["status"]>;
}

/** Metadata is stored as JSON text: its keys are the caller's (see caller-json.ts). */
function load(doc: SessionDoc | null): SessionDoc | null {
  return doc && { ...doc, metadata: decode(doc.metadata) };
}

function storedMetadata(metadata: Metadata): Metadata {
  return encode(metadata) as unknown as Metadata;
}

export class SessionStore {
  private readonly sessions: Collection<SessionDoc>;

  constructor(db: Db) {
    this.sessions = db.collection<SessionDoc>("sessions");
  }

  async insert(doc: SessionDoc): Promise<void> {
    await this.sessions.insertOne({ ...doc, metadata: storedMetadata(doc.metadata) });
  }

  async get(orgId: string, id: string): Promise<SessionDoc | null> {
    return load(await this.sessions.findOne({ _id: id, orgId }));
  }

  /** For workers, which act on a session by id alone. */
  async byId(id: string): Promise<SessionDoc | null> {
    return load(await this.sessions.findOne({ _id: id }));
  }

  /**
   * A page of the organization's sessions whose record status matches the filter (default: not
   * archived); `changing` sessions (records a transition is changing) are taken whatever their record
   * says, for the caller to match by their runtime status.
   */
  async list(orgId: string, filter: SessionFilter, opts: { limit: number; offset: number }, changing: string[] = []): Promise<Page<SessionDoc>> {
    const query: Filter<SessionDoc> = { orgId };
    if (filter.agentId) query.agentId = filter.agentId;
    if (filter.subjectId) query.subjectId = filter.subjectId;
    const status = filter.status ?? { $ne: "archived" as const };
    if (changing.length > 0) query.$or = [{ status }, { _id: { $in: changing } }];
    else query.status = status;
    const docs = await this.sessions.find(query).sort({ createdAt: -1, _id: -1 }).skip(opts.offset).limit(opts.limit + 1).toArray();
    return { items: docs.slice(0, opts.limit).map((d) => load(d)!), hasMore: docs.length > opts.limit };
  }

  async update(orgId: string, id: string, set: Partial<Pick<SessionDoc, "title" | "titleSource" | "yoloMode" | "metadata">>): Promise<SessionDoc | null> {
    const stored = set.metadata ? { ...set, metadata: storedMetadata(set.metadata) } : set;
    return load(await this.sessions.findOneAndUpdate({ _id: id, orgId }, { $set: { ...stored, updatedAt: new Date() } }, { returnDocument: "after" }));
  }

  /**
   * Writes the status as of state version `stateVersion`, unless the record already reflects that
   * version or a later one: whichever process writes last, an older state never rolls it back.
   */
  async projectStatus(id: string, status: SessionStatus, stateVersion: number): Promise<void> {
    await this.sessions.updateOne(
      { _id: id, statusVersion: { $lt: stateVersion } },
      { $set: { status, statusVersion: stateVersion, updatedAt: new Date() } },
    );
  }

  /** Adds a turn's usage once: a recovered turn that reports again is not counted twice. */
  async addUsage(id: string, turnId: string, usage: Usage): Promise<void> {
    const current = await this.sessions.findOne({ _id: id }, { projection: { usage: 1, usageTurn: 1 } });
    if (!current || current.usageTurn === turnId) return;
    const prev = current.usage;
    const sum = (k: "input" | "output" | "cache_read" | "cache_write" | "reasoning" | "total" | "calls" | "latency_ms") => (prev?.[k] ?? 0) + usage[k];
    const aggregate: Usage = {
      model: usage.model,
      input: sum("input"),
      output: sum("output"),
      cache_read: sum("cache_read"),
      cache_write: sum("cache_write"),
      reasoning: sum("reasoning"),
      total: sum("total"),
      calls: sum("calls"),
      context_used: usage.context_used,
      context_max: usage.context_max,
      context_percent: usage.context_percent,
      cost_status: usage.cost_status,
      last_turn_latency_ms: usage.last_turn_latency_ms,
      latency_ms: sum("latency_ms"),
    };
    if (usage.cost_usd !== undefined || prev?.cost_usd !== undefined) aggregate.cost_usd = (prev?.cost_usd ?? 0) + (usage.cost_usd ?? 0);
    await this.sessions.updateOne(
      { _id: id, usageTurn: current.usageTurn },
      { $set: { usage: aggregate, usageTurn: turnId, updatedAt: new Date() } },
    );
  }

  /** Sets a generated title only while the session has none; a caller's title always wins. */
  async setGeneratedTitle(id: string, title: string): Promise<boolean> {
    const res = await this.sessions.updateOne({ _id: id, title: null }, { $set: { title, titleSource: "generated", updatedAt: new Date() } });
    return res.modifiedCount === 1;
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    return (await this.sessions.deleteOne({ _id: id, orgId })).deletedCount === 1;
  }

  async hasSessions(orgId: string, agentId: string): Promise<boolean> {
    return (await this.sessions.findOne({ orgId, agentId }, { projection: { _id: 1 } })) !== null;
  }
}
