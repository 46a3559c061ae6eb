/**
 * Reads of one session's event log on Redis Streams: the durable log (`<sequence>-0` ids, so `after=N`
 * is an index lookup), the capped live stream SSE tails, the runtime state hash and the status overlay;
 * and the session's keys' lifecycle (created with the session, deleted with it). Appends are
 * `event-appender.ts`'s.
 */
import type { Envelope, EventStatus, LiveEnvelope, Payload } from "../domain/events.js";
import { REPLACED_PAYLOAD_TYPE } from "../domain/inbound-plan.js";
import type { RuntimeState } from "../domain/session-state.js";
import { runScript, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";
import { keptWithPayloads, PAGE_BOUNDS, pageEnd, type PageBounds } from "./large-events.js";
import { IDENTITY_FIELDS, identityOf, parseEntry, parseState, snapshotOf, type SessionIdentity, type Snapshot, type StateSummary } from "./log-entries.js";

/** A durable event as a page of the log holds it, with the id of its live-stream entry. */
export interface LoggedEvent {
  envelope: Envelope;
  liveId: string;
}

export interface LogPage {
  events: LoggedEvent[];
  /** The log holds events after the page (up to where it was asked to stop). */
  more: boolean;
}

/** A member of the index of large events: `<sequence>:<bytes>`. */
function largeMember(member: string): [number, number] {
  const at = member.indexOf(":");
  return [Number(member.slice(0, at)), Number(member.slice(at + 1))];
}

/** The sequence of a durable log entry, from its id (`<sequence>-0`). */
const sequenceOf = (entryId: string) => Number(entryId.slice(0, entryId.indexOf("-")));

/** Events a read of the log takes at a time when it reads on to an end (`events`). */
const READ_PAGE = 200;

/** Events a page reads whole in its first round trip, when none of them is large (`read-page-4.lua`). */
const SHORT_PAGE = 16;

/** An envelope with what the overlay holds of it: its current status, the turn it joined, a replacement payload. */
function overlaid(envelope: Envelope, patch: string | null, turn: string | null, payload: string | null): Envelope {
  let merged = envelope;
  if (patch) {
    const change = JSON.parse(patch) as { status: EventStatus; processedAt: string | null };
    merged = { ...merged, status: change.status, processedAt: change.processedAt };
  }
  if (turn) merged = { ...merged, turnId: turn };
  if (payload) merged = { ...merged, payload: JSON.parse(payload) as Payload };
  return merged;
}

export class EventLog {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly bounds: PageBounds = PAGE_BOUNDS,
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

  /** What a send's commit kept under its Idempotency-Key's overlay field (`append-events-11.lua`), if it was made. */
  async onceMark(sessionId: string, field: string): Promise<string | null> {
    return this.redis.hget(this.keys.sessionOverlay(sessionId), field);
  }

  /** Whether the session has state, and its identity when the state keeps it, in one read. */
  async identity(sessionId: string): Promise<{ identity: SessionIdentity | null } | null> {
    const [v, org, agent, subject] = await this.redis.hmget(
      this.keys.sessionState(sessionId),
      "v",
      IDENTITY_FIELDS.orgId,
      IDENTITY_FIELDS.agentId,
      IDENTITY_FIELDS.subjectId,
    );
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

  /**
   * Durable events with `sequence > after`, up to `upTo`, with their current statuses merged in: at most
   * `limit`, fewer when their bytes would pass the page's budget, which is known before they are read
   * (`large-events.ts`); `more` says whether the log holds events after the page (up to `upTo`).
   * The first round trip (`read-page-4.lua`) reads the counter and the index of large events, and a
   * page of a few small events whole (a warm transcript's tail, a stream's catch-up). A longer page
   * takes plain commands after it: the entries, then the overlay (and a replacement payload), as a
   * script's long reply costs Redis several times the plain command's (docs/decisions/sessions-and-events.md,
   * "Large events").
   */
  async page(sessionId: string, after: number, limit: number, upTo?: number): Promise<LogPage> {
    const overlayKey = this.keys.sessionOverlay(sessionId);
    const [counter, named, short, shortOverlay] = (await runScript(this.redis, "readPage", this.keys.readPageKeys(sessionId), [
      after,
      limit,
      upTo ?? "",
      SHORT_PAGE,
      REPLACED_PAYLOAD_TYPE,
    ])) as [string | null, string[], [string, string[]][] | null, (string | number | null)[] | null];
    const last = Math.min(Number(counter ?? 0), upTo ?? Number.MAX_SAFE_INTEGER);
    const { end, spent } = pageEnd(after, last, limit, named.map(largeMember), this.bounds);
    if (end <= after) return { events: [], more: false };
    // A short page read whole may reach past a tighter budget's end (small bounds): it is cut there.
    const fetched = short?.filter(([id]) => sequenceOf(id) <= end) ?? (await this.redis.xrange(this.keys.sessionLog(sessionId), `(${after}-0`, `${end}-0`));
    const entries = fetched.map(([, fields]) => parseEntry(fields));
    const envelopes = entries.map((f) => JSON.parse(f.env!) as Envelope);
    const [overlay, payloadBytes] = shortOverlay
      ? [
          envelopes.flatMap((_, i) => [shortOverlay[3 * i] as string | null, shortOverlay[3 * i + 1] as string | null]),
          envelopes.map((_, i) => Number(shortOverlay[3 * i + 2])),
        ]
      : await Promise.all([
          envelopes.length ? this.redis.hmget(overlayKey, ...envelopes.flatMap((e) => [e.id, `${e.id}:turn`])) : [],
          Promise.all(envelopes.map((e) => (e.type === REPLACED_PAYLOAD_TYPE ? this.redis.hstrlen(overlayKey, `${e.id}:payload`) : 0))),
        ]);
    const kept = envelopes.slice(0, keptWithPayloads(spent, payloadBytes, this.bounds));
    const payloads = await Promise.all(kept.map((e, i) => (payloadBytes[i]! > 0 ? this.redis.hget(overlayKey, `${e.id}:payload`) : null)));
    const events = kept.map((e, i) => ({
      envelope: overlaid(e, overlay[2 * i] ?? null, overlay[2 * i + 1] ?? null, payloads[i] ?? null),
      liveId: entries[i]!.live ?? "0-0",
    }));
    const read = events.at(-1)?.envelope.sequence ?? after;
    return { events, more: events.length > 0 && read < last };
  }

  /** The envelopes of a page (`page`): at most `limit`, fewer when the page's bytes were cut. */
  async history(sessionId: string, after: number, limit: number): Promise<Envelope[]> {
    return (await this.page(sessionId, after, limit)).events.map((e) => e.envelope);
  }

  /** Every durable event after `after` up to `upTo`, read a page at a time. */
  async *events(sessionId: string, after: number, upTo?: number): AsyncGenerator<LoggedEvent> {
    for (;;) {
      const { events, more } = await this.page(sessionId, after, READ_PAGE, upTo);
      yield* events;
      if (!more || events.length === 0) return;
      after = events[events.length - 1]!.envelope.sequence;
    }
  }

  /**
   * As `history`, waiting up to `blockMs` for the first event after `after` when there is none yet
   * (empty when none came); `blocking` is a connection of its own, which the XREAD BLOCK holds. The
   * wait reads one entry at most; the page is read as `page` reads it.
   */
  async follow(blocking: RedisClient, sessionId: string, after: number, limit: number, blockMs: number): Promise<Envelope[]> {
    const page = await this.history(sessionId, after, limit);
    if (page.length > 0) return page;
    await blocking.xread("COUNT", 1, "BLOCK", blockMs, "STREAMS", this.keys.sessionLog(sessionId), `${after}-0`);
    return this.history(sessionId, after, limit);
  }

  async withOverlay(sessionId: string, envelopes: Envelope[]): Promise<Envelope[]> {
    if (envelopes.length === 0) return envelopes;
    const fields = envelopes.flatMap((e) => [e.id, `${e.id}:turn`, `${e.id}:payload`]);
    const overlay = await this.redis.hmget(this.keys.sessionOverlay(sessionId), ...fields);
    return envelopes.map((e, i) => {
      const [patch, turn, payload] = overlay.slice(3 * i, 3 * i + 3);
      return overlaid(e, patch ?? null, turn ?? null, payload ?? null);
    });
  }

  /**
   * A live-only frame's envelope, whole: a patched one gets its replacement payload from the overlay
   * (null when that is gone: the session was deleted).
   */
  async completed(sessionId: string, frame: { envelope: LiveEnvelope; replacementOf?: string }): Promise<LiveEnvelope | null> {
    if (frame.replacementOf === undefined) return frame.envelope;
    const payload = await this.redis.hget(this.keys.sessionOverlay(sessionId), `${frame.replacementOf}:payload`);
    if (payload === null) return null;
    return { ...frame.envelope, payload: { ...frame.envelope.payload, payload: JSON.parse(payload) as Payload } };
  }

  /** The first durable event up to `upTo` that `match` accepts. */
  async first(sessionId: string, upTo: number, match: (env: Envelope) => boolean): Promise<Envelope | null> {
    for await (const { envelope } of this.events(sessionId, 0, upTo)) if (match(envelope)) return envelope;
    return null;
  }

  /** A durable event by id, newest first: rare lookups (a replaced long-running result). */
  findById(sessionId: string, eventId: string): Promise<Envelope | null> {
    return this.findNewest(sessionId, (env) => env.id === eventId);
  }

  /** The newest durable event `match` accepts, read back from the end a window at a time: rare lookups (an attachment named by a tool). */
  async findNewest(sessionId: string, match: (env: Envelope) => boolean): Promise<Envelope | null> {
    for (let upTo = await this.lastSequence(sessionId); upTo > 0; upTo -= READ_PAGE) {
      let found: Envelope | null = null;
      for await (const { envelope } of this.events(sessionId, Math.max(0, upTo - READ_PAGE), upTo)) if (match(envelope)) found = envelope;
      if (found) return found;
    }
    return null;
  }

  async lastSequence(sessionId: string): Promise<number> {
    return Number((await this.redis.get(this.keys.sessionSeq(sessionId))) ?? 0);
  }

  /** The last sequence given out, and how many entries the log and the capped live stream hold. */
  async sizes(sessionId: string): Promise<{ lastSequence: number; logEntries: number; liveEntries: number }> {
    const [seq, log, live] = await Promise.all([
      this.lastSequence(sessionId),
      this.redis.xlen(this.keys.sessionLog(sessionId)),
      this.redis.xlen(this.keys.sessionLive(sessionId)),
    ]);
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
