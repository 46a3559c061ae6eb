/**
 * A worker's view of session records, cached in process: the facts a turn runs on, which never change
 * (whose session it is, the agent version, subject and role), read from MongoDB once; and whether the
 * record is known to have a title. Fields callers may change (yoloMode, metadata) are not here: whoever
 * needs them reads the record. (The usage total is not the record's to keep: the runtime state has it.)
 */
import { Lru } from "../lru.js";
import type { SessionDoc, SessionStore } from "../sessions/store/sessions.js";

export type SessionFacts = Pick<SessionDoc, "_id" | "orgId" | "agentId" | "agentVersion" | "subjectId" | "role" | "deploymentId">;

interface Entry {
  facts: SessionFacts;
  /** A title, once set, is never removed (an update can only replace it). */
  titled: boolean;
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
    const { _id, orgId, agentId, agentVersion, subjectId, role, deploymentId } = doc;
    const facts = { _id, orgId, agentId, agentVersion, subjectId, role, ...(deploymentId ? { deploymentId } : {}) };
    this.entries.set(sessionId, { facts, titled: doc.title !== null });
    return facts;
  }

  /**
   * Facts known without a read: those of a session just created, from its preparation hint. Safe even
   * for a session deleted since: deleting removes its runtime state, which then holds nothing to run.
   */
  remember(facts: SessionFacts, titled: boolean): void {
    if (!this.entries.get(facts._id)) this.entries.set(facts._id, { facts, titled });
  }

  /** A session found gone: its facts are no longer served. */
  forget(sessionId: string): void {
    this.entries.delete(sessionId);
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
