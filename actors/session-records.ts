/**
 * A worker's view of session records, cached in process: the facts a turn runs on, which never change
 * (whose session it is, the agent version, subject and role), read from MongoDB once; whether the
 * record is known to have a title; and the usage tally this worker last wrote, with the lock tenure it
 * wrote it in. Only the holder of a session's lock adds usage, so while the same tenure (fencing token)
 * lasts, that tally is the record's and the next turn adds to it without reading; a new tenure reads
 * again, as another worker may have counted turns in between. Fields callers may change (yoloMode,
 * metadata) are not here: whoever needs them reads the record.
 */
import type { Usage } from "../src/domain/events.js";
import { Lru } from "../src/lru.js";
import type { SessionDoc, SessionStore, Tally } from "../src/store/sessions.js";

export type SessionFacts = Pick<SessionDoc, "_id" | "orgId" | "agentId" | "agentVersion" | "subjectId" | "role">;

interface Entry {
  facts: SessionFacts;
  /** A title, once set, is never removed (an update can only replace it). */
  titled: boolean;
  written?: { tally: Tally | null; fence: string };
}

/** Sessions remembered; an entry is a few hundred bytes. */
const CAPACITY = 10_000;

export class SessionRecords {
  private readonly entries = new Lru<string, Entry>(CAPACITY);

  constructor(private readonly sessions: SessionStore) {}

  /** The session's facts; null when it has no record (deleted). */
  async facts(sessionId: string): Promise<SessionFacts | null> {
    const cached = this.entries.get(sessionId);
    if (cached) return cached.facts;
    const doc = await this.sessions.byId(sessionId);
    if (!doc) return null;
    const { _id, orgId, agentId, agentVersion, subjectId, role } = doc;
    const facts = { _id, orgId, agentId, agentVersion, subjectId, role };
    this.entries.set(sessionId, { facts, titled: doc.title !== null });
    return facts;
  }

  /** A session found gone: its facts are no longer served. */
  forget(sessionId: string): void {
    this.entries.delete(sessionId);
  }

  /** Adds a turn's usage to the record's tally once, under the lock whose token is `fence`. */
  async addUsage(sessionId: string, turnId: string, usage: Usage, fence: string): Promise<void> {
    const entry = this.entries.get(sessionId);
    const known = entry?.written?.fence === fence ? entry.written.tally : undefined;
    const tally = await this.sessions.addUsage(sessionId, turnId, usage, known);
    if (entry) entry.written = { tally, fence };
  }

  /** Whether the record may still lack a title: false once it is known to have one. */
  mayBeUntitled(sessionId: string): boolean {
    return !(this.entries.get(sessionId)?.titled ?? false);
  }

  /** The record has a title (this worker's, or one that was already there when it tried). */
  titled(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    if (entry) entry.titled = true;
  }
}
