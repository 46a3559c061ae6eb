/**
 * A process's one cache of session facts, for the API's sends and reads and the worker's turns alike:
 * whose a session is (organization, agent, subject) and, once its record was read or a preparation hint
 * gave them, its agent version, role and deployment.
 *
 * *Why caching them is safe:* these facts are written when the session is created and never changed,
 * and ids are never reused. What can change, the session's existence, is never answered here: every
 * caller reads the session's runtime state in the same step (deleting a session removes it first), and
 * the one invalidation rule is that a caller who finds the session gone (no state, or `not_found`)
 * forgets its entry. Fields a caller may change (yoloMode, metadata, title) are not kept, but for one
 * hint that only ever turns true: whether the record has a title (`titled`).
 */
import { Lru } from "../lru.js";
import type { SessionIdentity } from "./redis/log-entries.js";
import type { SessionDoc, SessionStore } from "./store/sessions.js";

export type SessionFacts = Pick<SessionDoc, "_id" | "orgId" | "agentId" | "agentVersion" | "subjectId" | "role" | "deploymentId" | "thread">;

interface Entry {
  /** Whose the session is: its facts once known; the API may learn the identity alone, from the runtime state. */
  identity: SessionIdentity;
  facts: SessionFacts | null;
  /** A title, once set, is never removed (an update can only replace it): false may be stale, true never is. */
  titled: boolean;
}

/** Sessions remembered; an entry is a few hundred bytes. */
const CAPACITY = 10_000;

export class SessionFactsCache {
  private readonly entries = new Lru<string, Entry>(CAPACITY);

  constructor(private readonly store: SessionStore) {}

  /** The session's identity if this process knows it, without a read. */
  known(sessionId: string): SessionIdentity | undefined {
    return this.entries.get(sessionId)?.identity;
  }

  /**
   * The session's identity: known, else the one its runtime state keeps (`stored`), else its record's
   * (a session created before the state kept it); null when it has no record.
   */
  async identity(sessionId: string, stored: SessionIdentity | null): Promise<SessionIdentity | null> {
    const known = this.known(sessionId);
    if (known) return known;
    if (!stored) return this.facts(sessionId);
    this.entries.set(sessionId, { identity: stored, facts: null, titled: false });
    return stored;
  }

  /** The session's facts, read from its record once; null when it has no record (deleted). */
  async facts(sessionId: string): Promise<SessionFacts | null> {
    const entry = this.entries.get(sessionId);
    if (entry?.facts) return entry.facts;
    const doc = await this.store.byId(sessionId);
    if (!doc) return null;
    const { _id, orgId, agentId, agentVersion, subjectId, role, deploymentId, thread } = doc;
    const facts = { _id, orgId, agentId, agentVersion, subjectId, role, ...(deploymentId ? { deploymentId } : {}), ...(thread ? { thread } : {}) };
    this.entries.set(sessionId, { identity: facts, facts, titled: doc.title !== null || (entry?.titled ?? false) });
    return facts;
  }

  /** Facts known without a read: those of a session just created, from its preparation hint. */
  remember(facts: SessionFacts, titled: boolean): void {
    const entry = this.entries.get(facts._id);
    if (!entry?.facts) this.entries.set(facts._id, { identity: facts, facts, titled: titled || (entry?.titled ?? false) });
  }

  /** The one invalidation: a caller found the session gone. */
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
