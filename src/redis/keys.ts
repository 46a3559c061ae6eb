/**
 * Every Redis key name. Keys of one session share a hash tag so Lua scripts over them stay legal on a
 * Redis Cluster; allowance keys share the tag of their counting scope. All names start with a namespace
 * (REDIS_KEY_PREFIX, default `as`), so several deployments or test runs can share one Redis without
 * reading each other's wake-ups.
 *
 * On a single node a session's tag is `{<sessionId>}` and the intent sets and the wake-up stream are
 * global. On a Redis Cluster the sessions are spread over CLUSTER_SHARDS shards: a session's keys carry
 * its shard's tag, and each shard has its own intent sets and wake-up stream under that tag, so the
 * commit (`append-events-11.lua`) touches one slot only (docs/decisions/redis.md, "Redis Cluster").
 */

export const WINDOW_MS = 60_000;

/** Fixed: a session's shard is part of its keys' names, so changing it would lose every session. */
export const CLUSTER_SHARDS = 16;
/**
 * Shard k's hash tag hashes into slots [1024k, 1024(k+1)) (the first `s<k>-<j>` that does, by CLUSTER
 * KEYSLOT): a cluster whose masters hold equal contiguous slot ranges (as `redis-cli --cluster create`
 * makes them) holds equal numbers of shards.
 */
const SHARD_TAGS = [
  "s0-60",
  "s1-63",
  "s2-40",
  "s3-43",
  "s4-10",
  "s5-13",
  "s6-3",
  "s7-0",
  "s8-1",
  "s9-2",
  "s10-0",
  "s11-3",
  "s12-60",
  "s13-63",
  "s14-22",
  "s15-21",
];
/** The slot of each shard's tag. */
const SHARD_SLOTS = [586, 1181, 2368, 3991, 4396, 6139, 6182, 8053, 9061, 9270, 10821, 11542, 12725, 14178, 15018, 15485];

/** FNV-1a: a stable spread of session ids over the shards. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class Keys {
  /** 1 on a single node; CLUSTER_SHARDS on a Redis Cluster. */
  readonly shards: number;

  constructor(
    readonly prefix = "as",
    readonly cluster = false,
  ) {
    this.shards = cluster ? CLUSTER_SHARDS : 1;
  }

  /** The shard whose intent sets and wake-up stream serve the session (always 0 on a single node). */
  shardOf(sessionId: string): number {
    return this.cluster ? hash(sessionId) % CLUSTER_SHARDS : 0;
  }
  /** Every shard, in order. */
  allShards(): number[] {
    return Array.from({ length: this.shards }, (_, i) => i);
  }
  /** Groups of shards one multi-key command may read together: all of them on a single node, one each on a cluster. */
  shardGroups(): number[][] {
    return this.cluster ? this.allShards().map((shard) => [shard]) : [this.allShards()];
  }
  /** The cluster slot of the shard's keys; null on a single node. */
  slotOf(shard: number): number | null {
    return this.cluster ? SHARD_SLOTS[shard]! : null;
  }
  private session(sessionId: string): string {
    return this.cluster ? `${this.prefix}:{${SHARD_TAGS[this.shardOf(sessionId)]}}:${sessionId}` : `${this.prefix}:{${sessionId}}`;
  }
  /** A shard's global key: its flat name on a single node, under the shard's tag on a cluster. */
  private sharded(name: string, shard: number): string {
    return this.cluster ? `${this.prefix}:{${SHARD_TAGS[shard]}}:${name}` : `${this.prefix}:${name}`;
  }

  keyCeiling(keyId: string, windowStart: number): string {
    return `${this.prefix}:rl:key:{${keyId}}:${windowStart}`;
  }
  /** The organization's open event streams, across API processes (`open-streams.ts`). */
  openStreams(orgId: string): string {
    return `${this.prefix}:streams:{${orgId}}`;
  }
  allowance(orgId: string, agentId: string, subjectId: string, kind: string, windowStart: number): string {
    return `${this.prefix}:rl:{${orgId}:${agentId}:${subjectId}}:${kind}:${windowStart}`;
  }
  sessionLog(sessionId: string): string {
    return `${this.session(sessionId)}:log`;
  }
  /** The log's index of large events (`large-events.ts`). */
  sessionLarge(sessionId: string): string {
    return `${this.session(sessionId)}:large`;
  }
  sessionSeq(sessionId: string): string {
    return `${this.session(sessionId)}:seq`;
  }
  sessionLive(sessionId: string): string {
    return `${this.session(sessionId)}:live`;
  }
  sessionOverlay(sessionId: string): string {
    return `${this.session(sessionId)}:overlay`;
  }
  sessionState(sessionId: string): string {
    return `${this.session(sessionId)}:state`;
  }
  sessionLock(sessionId: string): string {
    return `${this.session(sessionId)}:lock`;
  }
  /** Present while the wake-up consumer of that name is alive (its worker renews it at each sweep). */
  consumerAlive(consumer: string): string {
    return `${this.prefix}:consumer:${consumer}`;
  }
  /** A request's Idempotency-Key within its organization, by the key's hash (any printable key, one bounded name). */
  idempotency(orgId: string, keyHash: string): string {
    return `${this.prefix}:idem:{${orgId}}:${keyHash}`;
  }
  /** Bumped on each change to the organization's vaults, credentials or attachments (`org-epochs.ts`). */
  vaultEpoch(orgId: string): string {
    return `${this.prefix}:vaults:{${orgId}}:epoch`;
  }
  /** Bumped on each change to the organization's webhook endpoints (`webhook-notices.ts`). */
  webhookEpoch(orgId: string): string {
    return `${this.prefix}:webhooks:{${orgId}}:epoch`;
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
  /** A shard's wake-up stream, which the workers' consumer group reads. */
  wakeups(shard: number): string {
    return this.sharded("wakeups", shard);
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
  /** What each session of an (organization, agent, subject) has spent, and their total (`subject-spend.ts`). */
  subjectSpend(orgId: string, agentId: string, subjectId: string): string {
    return `${this.prefix}:spend:{${orgId}:${agentId}:${subjectId}}`;
  }
  agentLimits(agentId: string): string {
    return `${this.prefix}:agent:{${agentId}}:limits`;
  }
  /** A shard's sessions handed to the workers and not yet looked at, scored by when. */
  pending(shard: number): string {
    return this.sharded("pending", shard);
  }
  /** Custom tool calls waiting for their first result, scored by their kickoff deadline (`kickoffs.ts`). */
  kickoffs(): string {
    return `${this.prefix}:kickoffs`;
  }
  /** Turn debits written before their turn's end commits, until applied to the credit ledger (`owed-debits.ts`). */
  owedDebits(): string {
    return `${this.prefix}:credits:owed`;
  }
  /** Writers changing a shard's sessions' MongoDB records, scored by when: the recovery sweep's outbox. */
  projections(shard: number): string {
    return this.sharded("projections", shard);
  }

  /**
   * KEYS of `append-events-11.lua`, in its header's order; `allowance` is the counter the commit counts,
   * if any (never on a cluster, where it is in another slot: the appender counts it beforehand).
   */
  appendEventsKeys(sessionId: string, allowance: string | null): string[] {
    const shard = this.shardOf(sessionId);
    return [
      this.sessionState(sessionId),
      this.sessionSeq(sessionId),
      this.sessionLog(sessionId),
      this.sessionLive(sessionId),
      this.sessionLock(sessionId),
      this.sessionOverlay(sessionId),
      this.pending(shard),
      this.projections(shard),
      this.wakeups(shard),
      // The script reads it only when it counts something; the state key stands in for "none".
      allowance ?? this.sessionState(sessionId),
      this.sessionLarge(sessionId),
    ];
  }
  /** KEYS of `read-page-4.lua`, in its header's order. */
  readPageKeys(sessionId: string): string[] {
    return [this.sessionSeq(sessionId), this.sessionLarge(sessionId), this.sessionLog(sessionId), this.sessionOverlay(sessionId)];
  }
  /** KEYS of `append-live-2.lua`, in its header's order. */
  appendLiveKeys(sessionId: string): string[] {
    return [this.sessionLive(sessionId), this.sessionLock(sessionId)];
  }

  /** All keys one session owns, for deletion. */
  sessionKeys(sessionId: string): string[] {
    return [
      this.sessionLog(sessionId),
      this.sessionLarge(sessionId),
      this.sessionSeq(sessionId),
      this.sessionLive(sessionId),
      this.sessionOverlay(sessionId),
      this.sessionState(sessionId),
    ];
  }
}
