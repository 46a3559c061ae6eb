/**
 * Reads of one session's event log on Redis Streams: the durable log (`<sequence>-0` ids, so `after=N`
 * is an index lookup), the capped live stream SSE tails, the runtime state hash and the status overlay;
 * and the session's keys' lifecycle (created with the session, deleted with it). Appends are
 * `event-appender.ts`'s.
 */
import type { RedisClient } from "./client.js";
import type { Envelope, EventStatus, Payload } from "../domain/events.js";
import { INITIAL_STATE, type RuntimeState, type SessionStatus } from "../domain/session-state.js";
import type { Keys } from "./keys.js";

/** A frame of the live stream, as SSE delivers it. */
export interface LiveFrame {
  liveId: string;
  envelope: Envelope;
  /** The durable sequence, absent for live-only frames (whose envelope has `sequence: null`). */
  sequence?: number;
}

export function parseState(hash: Record<string, string>): RuntimeState {
  if (!hash.v) return { ...INITIAL_STATE };
  const json = <T>(field: string, fallback: T): T => (hash[field] ? (JSON.parse(hash[field]!) as T) : fallback);
  return {
    v: Number(hash.v),
    status: (hash.status as SessionStatus | "deleted" | undefined) ?? "idle",
    turn: json("turn", null),
    queue: json("queue", []),
    interrupt: hash.interrupt || null,
    grants: json("grants", []),
    longRunning: json("longRunning", {}),
    ...(hash.usage === undefined ? {} : { usage: json("usage", null) }),
    ...(hash.compact === "true" ? { compact: true } : {}),
  };
}

/** What lists show of a session's runtime state. */
export type StateSummary = Pick<RuntimeState, "status" | "usage">;

/** Whose a session is and whom it counts against: written beside its state at creation, never changed. */
export interface SessionIdentity {
  orgId: string;
  agentId: string;
  subjectId: string;
}

/** The state hash's fields of the identity (not state fields: no plan reads or writes them). */
const IDENTITY_FIELDS = { orgId: "org", agentId: "agent", subjectId: "subject" } as const;

/** The identity kept in a state hash; null for a session created before it was kept there. */
export function identityOf(fields: Record<string, string | null | undefined>): SessionIdentity | null {
  const orgId = fields[IDENTITY_FIELDS.orgId];
  const agentId = fields[IDENTITY_FIELDS.agentId];
  const subjectId = fields[IDENTITY_FIELDS.subjectId];
  return orgId && agentId && subjectId ? { orgId, agentId, subjectId } : null;
}

/** The runtime state with the hash it was parsed from: a plan's preconditions are the strings it read. */
export interface Snapshot {
  state: RuntimeState;
  fields: Record<string, string>;
}

/** A snapshot of a state hash; null for a session without state (deleted: creation writes it first). */
export function snapshotOf(fields: Record<string, string>): Snapshot | null {
  return fields.v === undefined ? null : { state: parseState(fields), fields };
}

export function parseEntry(fields: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) out[fields[i]!] = fields[i + 1]!;
  return out;
}

export class EventLog {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async state(sessionId: string): Promise<RuntimeState> {
    return parseState(await this.redis.hgetall(this.keys.sessionState(sessionId)));
  }

  /** The state, or null when the session has none: it was deleted (creation writes it first). */
  async existingState(sessionId: string): Promise<RuntimeState | null> {
    return (await this.snapshot(sessionId))?.state ?? null;
  }

  async snapshot(sessionId: string): Promise<Snapshot | null> {
    return snapshotOf(await this.redis.hgetall(this.keys.sessionState(sessionId)));
  }

  /** What a send's commit kept under its Idempotency-Key's overlay field (`append-events-10.lua`), if it was made. */
  async onceMark(sessionId: string, field: string): Promise<string | null> {
    return this.redis.hget(this.keys.sessionOverlay(sessionId), field);
  }

  /** Whether the session has state, and its identity when the state keeps it, in one read. */
  async identity(sessionId: string): Promise<{ identity: SessionIdentity | null } | null> {
    const [v, org, agent, subject] = await this.redis.hmget(this.keys.sessionState(sessionId), "v", IDENTITY_FIELDS.orgId, IDENTITY_FIELDS.agentId, IDENTITY_FIELDS.subjectId);
    return v === null ? null : { identity: identityOf({ org, agent, subject }) };
  }

  /** Each session's runtime status and usage total; undefined for a session without runtime state. */
  async summaries(sessionIds: string[]): Promise<Map<string, StateSummary | undefined>> {
    // One command each, not a pipeline: on a cluster the sessions are in different slots (auto-pipelining still sends them together).
    const replies = await Promise.all(sessionIds.map((id) => this.redis.hmget(this.keys.sessionState(id), "v", "status", "usage")));
    return new Map(
      sessionIds.map((id, i) => {
        const [v, status, usage] = replies[i] ?? [];
        if (!v) return [id, undefined];
        const state = parseState({ v, ...(status ? { status } : {}), ...(typeof usage === "string" ? { usage } : {}) });
        return [id, { status: state.status, ...(state.usage === undefined ? {} : { usage: state.usage }) }];
      }),
    );
  }

  /** Durable events with `sequence > after`, with their current statuses merged in. */
  async history(sessionId: string, after: number, limit: number): Promise<Envelope[]> {
    return (await this.historyWithLiveIds(sessionId, after, limit)).map((r) => r.envelope);
  }

  /** As `history`, with the live-stream id written beside each durable event. */
  async historyWithLiveIds(sessionId: string, after: number, limit: number): Promise<{ envelope: Envelope; liveId: string }[]> {
    return this.decode(sessionId, await this.redis.xrange(this.keys.sessionLog(sessionId), `(${after}-0`, "+", "COUNT", limit));
  }

  /**
   * As `history`, waiting up to `blockMs` for the first event after `after` when there is none yet
   * (empty when none came); `blocking` is a connection of its own, which the XREAD BLOCK holds.
   */
  async follow(blocking: RedisClient, sessionId: string, after: number, limit: number, blockMs: number): Promise<Envelope[]> {
    const reply = (await blocking.xread("COUNT", limit, "BLOCK", blockMs, "STREAMS", this.keys.sessionLog(sessionId), `${after}-0`)) as [string, [string, string[]][]][] | null;
    return (await this.decode(sessionId, reply?.[0]?.[1] ?? [])).map((r) => r.envelope);
  }

  /** Log entries as clients see them: the envelope written with the event, its later statuses merged in. */
  private async decode(sessionId: string, entries: [string, string[]][]): Promise<{ envelope: Envelope; liveId: string }[]> {
    const parsed = entries.map(([, fields]) => parseEntry(fields));
    const envelopes = await this.withOverlay(sessionId, parsed.map((f) => JSON.parse(f.env!) as Envelope));
    return envelopes.map((envelope, i) => ({ envelope, liveId: parsed[i]!.live ?? "0-0" }));
  }

  async withOverlay(sessionId: string, envelopes: Envelope[]): Promise<Envelope[]> {
    if (envelopes.length === 0) return envelopes;
    const fields = envelopes.flatMap((e) => [e.id, `${e.id}:turn`, `${e.id}:payload`]);
    const overlay = await this.redis.hmget(this.keys.sessionOverlay(sessionId), ...fields);
    return envelopes.map((e, i) => {
      const [patch, turn, payload] = overlay.slice(3 * i, 3 * i + 3);
      let merged = e;
      if (patch) {
        const change = JSON.parse(patch) as { status: EventStatus; processedAt: string | null };
        merged = { ...merged, status: change.status, processedAt: change.processedAt };
      }
      if (turn) merged = { ...merged, turnId: turn };
      if (payload) merged = { ...merged, payload: JSON.parse(payload) as Payload };
      return merged;
    });
  }

  /** A durable event by id, newest first: rare lookups (a replaced long-running result). */
  findById(sessionId: string, eventId: string): Promise<Envelope | null> {
    return this.findNewest(sessionId, (env) => env.id === eventId);
  }

  /** The newest durable event `match` accepts, read back from the end: rare lookups (an attachment named by a tool). */
  async findNewest(sessionId: string, match: (env: Envelope) => boolean): Promise<Envelope | null> {
    let end = "+";
    for (;;) {
      const page = await this.redis.xrevrange(this.keys.sessionLog(sessionId), end, "-", "COUNT", 200);
      for (const [, fields] of page) {
        const env = JSON.parse(parseEntry(fields).env!) as Envelope;
        if (match(env)) return (await this.withOverlay(sessionId, [env]))[0]!;
      }
      if (page.length < 200) return null;
      end = `(${page[page.length - 1]![0]}`;
    }
  }

  async lastSequence(sessionId: string): Promise<number> {
    return Number((await this.redis.get(this.keys.sessionSeq(sessionId))) ?? 0);
  }

  /** The last sequence given out, and how many entries the log and the capped live stream hold. */
  async sizes(sessionId: string): Promise<{ lastSequence: number; logEntries: number; liveEntries: number }> {
    const [seq, log, live] = await Promise.all([this.lastSequence(sessionId), this.redis.xlen(this.keys.sessionLog(sessionId)), this.redis.xlen(this.keys.sessionLive(sessionId))]);
    return { lastSequence: seq, logEntries: log, liveEntries: live };
  }

  /** Creates the session's state, with its identity, so the hot path needs no MongoDB read to know it. */
  async initialize(sessionId: string, identity: SessionIdentity): Promise<void> {
    const key = this.keys.sessionState(sessionId);
    const fields = { [IDENTITY_FIELDS.orgId]: identity.orgId, [IDENTITY_FIELDS.agentId]: identity.agentId, [IDENTITY_FIELDS.subjectId]: identity.subjectId };
    // `usage` empty: a total of none yet, unlike an absent one (a session from before it was kept here).
    const replies = (await this.redis.multi().hsetnx(key, "v", "0").hsetnx(key, "usage", "").hset(key, fields).exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
  }

  async delete(sessionId: string): Promise<void> {
    await this.redis.del(...this.keys.sessionKeys(sessionId));
  }
}

export function toLiveFrame(id: string, fields: string[]): LiveFrame {
  const f = parseEntry(fields);
  const frame: LiveFrame = { liveId: id, envelope: JSON.parse(f.env!) as Envelope };
  if (f.seq !== undefined) frame.sequence = Number(f.seq);
  return frame;
}
