/**
 * The wake-up stream: the at-least-once hand-off of "this session has work" to any worker, published
 * by the commit that made the work (`append-events-11.lua`: the session, and with tracing on the commit's
 * `traceparent`) and read by the `workers` consumer group.
 * Entries are acknowledged once the session is handled; those a dead consumer left unacknowledged are
 * claimed by another once the session's lock is free (`WakeupConsumer`'s sweep). (The `pending` intent set is the backstop for a
 * wake-up that was never published: `intents.ts`.) Each shard has its stream (one on a single node),
 * in the slot of its sessions' keys (`keys.ts`), with the group on each.
 */
import { runScript, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

export const WORKER_GROUP = "workers";
/** The wake-up stream keeps about this many entries (consumed ones are only history). */
export const WAKEUP_MAXLEN = 100_000;

export interface Wakeup {
  /** The shard whose stream holds the entry. */
  shard: number;
  entryId: string;
  /** Null for an entry without a session field (never written by this service). */
  sessionId: string | null;
  /** The W3C trace context of the append that published it, when tracing was on there. */
  traceparent: string | null;
}

type Entries = [string, string[] | null][];

/** A wake-up of a session no worker has acknowledged. */
export interface PendingWakeup {
  entryId: string;
  /** The consumer it was delivered to (handling the session now, or died doing so); null: not read by the group yet. */
  consumer: string | null;
  /** How long since it was last delivered (ms); null when not delivered. */
  idleMs: number | null;
  deliveries: number;
}

function toWakeups(shard: number, entries: Entries): Wakeup[] {
  return entries.map(([entryId, fields]) => {
    const at = fields ? fields.indexOf("session") : -1;
    const trace = fields ? fields.indexOf("traceparent") : -1;
    return { shard, entryId, sessionId: at >= 0 ? (fields![at + 1] ?? null) : null, traceparent: trace >= 0 ? (fields![trace + 1] ?? null) : null };
  });
}

/** Whether each consumer's heartbeat is present (one command each: on a cluster they are in different slots). */
async function aliveOf(redis: RedisClient, keys: Keys, consumers: string[]): Promise<boolean[]> {
  return Promise.all(
    consumers.map((name) =>
      redis.exists(keys.consumerAlive(name)).then(
        (n) => n > 0,
        () => true,
      ),
    ),
  );
}

export class Wakeups {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Makes the group on every shard's stream. */
  async ensureGroup(): Promise<void> {
    for (const shard of this.keys.allShards()) {
      try {
        await this.redis.xgroup("CREATE", this.keys.wakeups(shard), WORKER_GROUP, "0", "MKSTREAM");
      } catch (err) {
        if (!String((err as Error).message).includes("BUSYGROUP")) throw err;
      }
    }
  }

  /** Makes the consumer in the group now, not at its first entry, so a process that dies idle leaves one to remove too. */
  async register(consumer: string): Promise<void> {
    await Promise.all(this.keys.allShards().map((shard) => this.redis.xgroup("CREATECONSUMER", this.keys.wakeups(shard), WORKER_GROUP, consumer)));
  }

  /** New entries of the `shards`' streams for `consumer`, waiting up to `blockMs` on `blocking` (a connection of its own). */
  async read(blocking: RedisClient, shards: number[], consumer: string, count: number, blockMs: number): Promise<Wakeup[]> {
    const streams = new Map(shards.map((shard) => [this.keys.wakeups(shard), shard]));
    const reply = (await blocking.xreadgroup(
      "GROUP",
      WORKER_GROUP,
      consumer,
      "COUNT",
      count,
      "BLOCK",
      blockMs,
      "STREAMS",
      ...streams.keys(),
      ...shards.map(() => ">"),
    )) as [string, Entries][] | null;
    return (reply ?? []).flatMap(([key, entries]) => toWakeups(streams.get(key)!, entries));
  }

  async ack(shard: number, entryId: string): Promise<void> {
    await this.redis.xack(this.keys.wakeups(shard), WORKER_GROUP, entryId);
  }

  /** Says the consumer is alive for `ttlMs` (renewed while its worker runs; a dead one's lapses). */
  async heartbeat(consumer: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.consumerAlive(consumer), "1", "PX", ttlMs);
  }

  /** The consumers holding unacknowledged entries whose heartbeat has lapsed: their workers died. */
  async deadHolders(shard: number, except: string): Promise<string[]> {
    const summary = (await this.redis.xpending(this.keys.wakeups(shard), WORKER_GROUP)) as [number, string | null, string | null, [string, string][] | null];
    const holders = (summary[3] ?? []).map(([name]) => name).filter((name) => name !== except);
    if (holders.length === 0) return [];
    const alive = await aliveOf(this.redis, this.keys, holders);
    return holders.filter((_, i) => !alive[i]);
  }

  /** The entries of the shard's stream `consumer` holds, unacknowledged for at least `idleMs`, with their sessions. */
  async heldBy(shard: number, consumer: string, idleMs: number, count: number): Promise<Wakeup[]> {
    const key = this.keys.wakeups(shard);
    const pending = (await this.redis.xpending(key, WORKER_GROUP, "IDLE", idleMs, "-", "+", count, consumer)) as [string, string, number, number][];
    const sessions = await this.sessionsOf(
      shard,
      pending.map(([entryId]) => entryId),
    );
    // A wake-up served again starts a trace of its own: its first pass already joined the request's.
    return pending.map(([entryId], i) => ({ shard, entryId, sessionId: sessions[i]!, traceparent: null }));
  }

  /** The session each entry names, in one round trip; null for an entry trimmed from the stream (nothing left to hand to a worker). */
  private async sessionsOf(shard: number, entryIds: string[]): Promise<(string | null)[]> {
    if (entryIds.length === 0) return [];
    const key = this.keys.wakeups(shard);
    const lookups = this.redis.pipeline();
    for (const entryId of entryIds) lookups.xrange(key, entryId, entryId);
    return ((await lookups.exec()) ?? []).map(([, reply]) => toWakeups(shard, (reply as Entries | undefined) ?? [])[0]?.sessionId ?? null);
  }

  /** Makes the entries of the shard's stream `consumer`'s, those still unacknowledged and idle for `idleMs` (another may have just taken one). */
  async claim(shard: number, consumer: string, idleMs: number, entryIds: string[]): Promise<Wakeup[]> {
    if (entryIds.length === 0) return [];
    const claimed = (await this.redis.xclaim(this.keys.wakeups(shard), WORKER_GROUP, consumer, idleMs, ...entryIds)) as Entries;
    return toWakeups(
      shard,
      claimed.filter(([, fields]) => fields !== null),
    );
  }

  /**
   * Removes the group's consumers whose heartbeat lapsed (dead or stopped processes) that hold nothing
   * and have not read for `idleMs`, never `except`; one holding entries is left for a claimer to empty.
   */
  async removeIdleConsumers(shard: number, idleMs: number, except: string): Promise<number> {
    const key = this.keys.wakeups(shard);
    const consumers = ((await this.redis.xinfo("CONSUMERS", key, WORKER_GROUP)) as unknown[][]).map((flat) => {
      const info = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < flat.length; i += 2) info.set(flat[i], flat[i + 1]);
      return { name: String(info.get("name")), pending: Number(info.get("pending")), idle: Number(info.get("idle")) };
    });
    const idle = consumers.filter((c) => c.name !== except && c.pending === 0 && c.idle >= idleMs).map((c) => c.name);
    if (idle.length === 0) return 0;
    const alive = await aliveOf(this.redis, this.keys, idle);
    const dead = idle.filter((_, i) => !alive[i]);
    if (dead.length === 0) return 0;
    return Number(await runScript(this.redis, "removeIdleConsumers", [key], [WORKER_GROUP, idleMs, except, ...dead]));
  }

  /**
   * The session's wake-ups not acknowledged yet: those delivered (to whom, idle how long, how often) and
   * those the group has not read. An operator's read: it looks at no more than `scan` entries of each
   * kind, and says whether that was all of them.
   */
  async pendingOf(sessionId: string, scan: number): Promise<{ wakeups: PendingWakeup[]; complete: boolean }> {
    const shard = this.keys.shardOf(sessionId);
    const key = this.keys.wakeups(shard);
    const group = await this.group(shard);
    const delivered = group && group.pending > 0 ? ((await this.redis.xpending(key, WORKER_GROUP, "-", "+", scan)) as [string, string, number, number][]) : [];
    const owners = await this.sessionsOf(
      shard,
      delivered.map(([entryId]) => entryId),
    );
    const undelivered = toWakeups(shard, await this.redis.xrange(key, group ? `(${group.lastDelivered}` : "-", "+", "COUNT", scan));
    return {
      wakeups: [
        ...delivered
          .filter((_, i) => owners[i] === sessionId)
          .map(([entryId, consumer, idleMs, deliveries]) => ({ entryId, consumer, idleMs: Number(idleMs), deliveries: Number(deliveries) })),
        ...undelivered.filter((w) => w.sessionId === sessionId).map(({ entryId }) => ({ entryId, consumer: null, idleMs: null, deliveries: 0 })),
      ],
      complete: delivered.length < scan && undelivered.length < scan,
    };
  }

  /**
   * Entries the group has not acknowledged (delivered and pending, plus not yet read: the group's lag)
   * and the age of the oldest, from its id's time: what a scrape reads (XINFO, XPENDING summary, one XRANGE).
   */
  async backlog(now: number): Promise<{ backlog: number; oldestAgeSeconds: number }> {
    const shards = await Promise.all(this.keys.allShards().map((shard) => this.shardBacklog(shard, now)));
    return { backlog: shards.reduce((n, s) => n + s.backlog, 0), oldestAgeSeconds: Math.max(...shards.map((s) => s.oldestAgeSeconds)) };
  }

  private async shardBacklog(shard: number, now: number): Promise<{ backlog: number; oldestAgeSeconds: number }> {
    const key = this.keys.wakeups(shard);
    const group = await this.group(shard);
    const ageOf = (id: string | undefined) => (id ? Math.max(0, now - Number(id.split("-")[0])) / 1000 : 0);
    // Before any worker made the group, every entry is waiting.
    if (!group) return { backlog: await this.redis.xlen(key), oldestAgeSeconds: ageOf((await this.redis.xrange(key, "-", "+", "COUNT", 1))[0]?.[0]) };
    const [pending, oldestPending] = (await this.redis.xpending(key, WORKER_GROUP)) as [number, string | null, ...unknown[]];
    // The entries after the last delivered one, counted (as many as the group's lag says, at most): Redis
    // 7.0 can report a lag long past, after restarting from its AOF with a trimmed stream.
    const unread = group.lag > 0 ? await this.redis.xrange(key, `(${group.lastDelivered}`, "+", "COUNT", group.lag) : [];
    return { backlog: Number(pending) + unread.length, oldestAgeSeconds: ageOf(oldestPending ?? unread[0]?.[0]) };
  }

  /** The workers' group: how many entries it has delivered and not acknowledged, and the last it read; null before any worker made it. */
  private async group(shard: number): Promise<{ pending: number; lastDelivered: string; lag: number } | null> {
    let groups: unknown[][];
    try {
      groups = (await this.redis.xinfo("GROUPS", this.keys.wakeups(shard))) as unknown[][];
    } catch (err) {
      if (String((err as Error).message).includes("no such key")) return null;
      throw err;
    }
    for (const flat of groups) {
      const info = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < flat.length; i += 2) info.set(flat[i], flat[i + 1]);
      if (info.get("name") === WORKER_GROUP)
        return { pending: Number(info.get("pending")), lastDelivered: String(info.get("last-delivered-id")), lag: Number(info.get("lag") ?? 0) || 0 };
    }
    return null;
  }
}
