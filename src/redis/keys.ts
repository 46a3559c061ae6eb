/**
 * Every Redis key name. Keys of one session carry `{<sessionId>}` as hash tag so they share a cluster
 * slot and Lua scripts over them stay legal; allowance keys share the tag of their counting scope.
 * All names start with a namespace (REDIS_KEY_PREFIX, default `as`), so several deployments or test
 * runs can share one Redis without reading each other's wake-ups.
 */

export const WINDOW_MS = 60_000;

export class Keys {
  constructor(readonly prefix = "as") {}

  keyCeiling(keyId: string, windowStart: number): string {
    return `${this.prefix}:rl:key:{${keyId}}:${windowStart}`;
  }
  allowance(orgId: string, agentId: string, subjectId: string, kind: string, windowStart: number): string {
    return `${this.prefix}:rl:{${orgId}:${agentId}:${subjectId}}:${kind}:${windowStart}`;
  }
  sessionLog(sessionId: string): string {
    return `${this.prefix}:{${sessionId}}:log`;
  }
  sessionSeq(sessionId: string): string {
    return `${this.prefix}:{${sessionId}}:seq`;
  }
  sessionLive(sessionId: string): string {
    return `${this.prefix}:{${sessionId}}:live`;
  }
  sessionOverlay(sessionId: string): string {
    return `${this.prefix}:{${sessionId}}:overlay`;
  }
  sessionState(sessionId: string): string {
    return `${this.prefix}:{${sessionId}}:state`;
  }
  sessionLock(sessionId: string): string {
    return `${this.prefix}:{${sessionId}}:lock`;
  }
  /** Present while the wake-up consumer of that name is alive (its worker renews it at each sweep). */
  consumerAlive(consumer: string): string {
    return `${this.prefix}:consumer:${consumer}`;
  }
  /** A request's Idempotency-Key within its organization, by the key's hash (any printable key, one bounded name). */
  idempotency(orgId: string, keyHash: string): string {
    return `${this.prefix}:idem:{${orgId}}:${keyHash}`;
  }
  /** Bumped on each change to the organization's vaults, credentials or attachments (`vault-epochs.ts`). */
  vaultEpoch(orgId: string): string {
    return `${this.prefix}:vaults:{${orgId}}:epoch`;
  }
  /** Replaced by a fresh value on each change to a subject's own skills (`skill-epochs.ts`). */
  skillEpoch(orgId: string, agentId: string, subjectId: string): string {
    return `${this.prefix}:skills:{${orgId}:${agentId}:${subjectId}}:epoch`;
  }
  /** Held while one process refreshes a credential's OAuth token, so two never spend one refresh token. */
  credentialRefresh(credentialId: string): string {
    return `${this.prefix}:cred:{${credentialId}}:refresh`;
  }
  /** Held (redlock) for one read-modify-write of a MongoDB record, so that its writers take turns (`locks.ts`). */
  recordLock(collection: string, id: string): string {
    return `${this.prefix}:record:{${collection}:${id}}:lock`;
  }
  /** Notices of archived and deleted sessions, which every worker reads to end what it keeps of them (`session-endings.ts`). */
  sessionEndings(): string {
    return `${this.prefix}:session-endings`;
  }
  /** The wake-up stream the workers' consumer group reads. */
  wakeups(): string {
    return `${this.prefix}:wakeups`;
  }
  /** The pub/sub channel of preparation hints, heard by every worker (`preparations.ts`). */
  preparations(): string {
    return `${this.prefix}:prepare`;
  }
  /** Held for a window after a prewarm of the (organization, agent, subject), so repeated ones publish nothing. */
  warmHint(orgId: string, agentId: string, subjectId: string): string {
    return `${this.prefix}:warm:{${orgId}:${agentId}:${subjectId}}`;
  }
  /**
   * Automations' schedule, all under one hash tag so the claim and release scripts stay in one slot:
   * due (next run times), claims (lease deadlines) and their owners (`automation-queue.ts`).
   */
  automationQueueKeys(): [due: string, claims: string, owners: string] {
    return [`${this.prefix}:{automations}:due`, `${this.prefix}:{automations}:claims`, `${this.prefix}:{automations}:owners`];
  }
  /** Held by the scheduler that repairs the due set from the records, so one repairs per period. */
  automationRepair(): string {
    return `${this.prefix}:{automations}:repair`;
  }
  agentLimits(agentId: string): string {
    return `${this.prefix}:agent:{${agentId}}:limits`;
  }
  /** Sessions handed to the workers and not yet looked at, scored by when. */
  pending(): string {
    return `${this.prefix}:pending`;
  }
  /** Custom tool calls waiting for their first result, scored by their kickoff deadline (`kickoffs.ts`). */
  kickoffs(): string {
    return `${this.prefix}:kickoffs`;
  }
  /** Turn debits written before their turn's end commits, until applied to the credit ledger (`owed-debits.ts`). */
  owedDebits(): string {
    return `${this.prefix}:credits:owed`;
  }
  /** Writers changing a session's MongoDB record, scored by when: the recovery sweep's outbox. */
  projections(): string {
    return `${this.prefix}:projections`;
  }

  /** KEYS of `append-events-10.lua`, in its header's order; `allowance` is the counter the commit counts, if any. */
  appendEventsKeys(sessionId: string, allowance: string | null): string[] {
    return [
      this.sessionState(sessionId),
      this.sessionSeq(sessionId),
      this.sessionLog(sessionId),
      this.sessionLive(sessionId),
      this.sessionLock(sessionId),
      this.sessionOverlay(sessionId),
      this.pending(),
      this.projections(),
      this.wakeups(),
      // The script reads it only when it counts something; the state key stands in for "none".
      allowance ?? this.sessionState(sessionId),
    ];
  }
  /** KEYS of `append-live-2.lua`, in its header's order. */
  appendLiveKeys(sessionId: string): string[] {
    return [this.sessionLive(sessionId), this.sessionLock(sessionId)];
  }

  /** All keys one session owns, for deletion. */
  sessionKeys(sessionId: string): string[] {
    return [this.sessionLog(sessionId), this.sessionSeq(sessionId), this.sessionLive(sessionId), this.sessionOverlay(sessionId), this.sessionState(sessionId)];
  }
}
