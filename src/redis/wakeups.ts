/**
 * The wake-up stream: the at-least-once hand-off of "this session has work" to any worker, published
 * by the commit that made the work (`append-events-10.lua`) and read by the `workers` consumer group.
 * Entries are acknowledged once the session is handled; those a dead consumer left unacknowledged are
 * claimed by another once the session's lock is free (`WakeupConsumer`'s sweep). (The `pending` intent set is the backstop for a
 * wake-up that was never published: `intents.ts`.)
 */
import type { Redis } from "ioredis";
import { runScript } from "./client.js";
import type { Keys } from "./keys.js";

export const WORKER_GROUP = "workers";
/** The wake-up stream keeps about this many entries (consumed ones are only history). */
export const WAKEUP_MAXLEN = 100_000;

export interface Wakeup {
  entryId: string;
  /** Null for an entry without a session field (never written by this service). */
  sessionId: string | null;
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

function toWakeups(entries: Entries): Wakeup[] {
  return entries.map(([entryId, fields]) => {
    const at = fields ? fields.indexOf("session") : -1;
    return { entryId, sessionId: at >= 0 ? (fields![at + 1] ?? null) : null };
  });
}

export class Wakeups {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async ensureGroup(): Promise<void> {
    try {
      await this.redis.xgroup("CREATE", this.keys.wakeups(), WORKER_GROUP, "0", "MKSTREAM");
    } catch (err) {
      if (!String((err as Error).message).includes("BUSYGROUP")) throw err;
    }
  }

  /** Makes the consumer in the group now, not at its first entry, so a process that dies idle leaves one to remove too. */
  async register(consumer: string): Promise<void> {
    await this.redis.xgroup("CREATECONSUMER", this.keys.wakeups(), WORKER_GROUP, consumer);
  }

  /** New entries for `consumer`, waiting up to `blockMs` on `blocking` (a connection of its own). */
  async read(blocking: Redis, consumer: string, count: number, blockMs: number): Promise<Wakeup[]> {
    const reply = (await blocking.xreadgroup("GROUP", WORKER_GROUP, consumer, "COUNT", count, "BLOCK", blockMs, "STREAMS", this.keys.wakeups(), ">")) as
      | [string, Entries][]
      | null;
    return (reply ?? []).flatMap(([, entries]) => toWakeups(entries));
  }

  async ack(entryId: string): Promise<void> {
    await this.redis.xack(this.keys.wakeups(), WORKER_GROUP, entryId);
  }

  /** Says the consumer is alive for `ttlMs` (renewed while its worker runs; a dead one's lapses). */
  async heartbeat(consumer: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.consumerAlive(consumer), "1", "PX", ttlMs);
  }

  /** The consumers holding unacknowledged entries whose heartbeat has lapsed: their workers died. */
  async deadHolders(except: string): Promise<string[]> {
    const summary = (await this.redis.xpending(this.keys.wakeups(), WORKER_GROUP)) as [number, string | null, string | null, [string, string][] | null];
    const holders = (summary[3] ?? []).map(([name]) => name).filter((name) => name !== except);
    if (holders.length === 0) return [];
    const checks = this.redis.pipeline();
    for (const name of holders) checks.exists(this.keys.consumerAlive(name));
    const alive = ((await checks.exec()) ?? []).map(([err, n]) => err !== null || Number(n) > 0);
    return holders.filter((_, i) => !alive[i]);
  }

  /** The entries `consumer` holds, unacknowledged for at least `idleMs`, with their sessions. */
  async heldBy(consumer: string, idleMs: number, count: number): Promise<Wakeup[]> {
    const key = this.keys.wakeups();
    const pending = (await this.redis.xpending(key, WORKER_GROUP, "IDLE", idleMs, "-", "+", count, consumer)) as [string, string, number, number][];
    const sessions = await this.sessionsOf(pending.map(([entryId]) => entryId));
    return pending.map(([entryId], i) => ({ entryId, sessionId: sessions[i]! }));
  }

  /** The session each entry names, in one round trip; null for an entry trimmed from the stream (nothing left to hand to a worker). */
  private async sessionsOf(entryIds: string[]): Promise<(string | null)[]> {
    if (entryIds.length === 0) return [];
    const key = this.keys.wakeups();
    const lookups = this.redis.pipeline();
    for (const entryId of entryIds) lookups.xrange(key, entryId, entryId);
    return ((await lookups.exec()) ?? []).map(([, reply]) => toWakeups((reply as Entries | undefined) ?? [])[0]?.sessionId ?? null);
  }

  /** Makes the entries `consumer`'s, those still unacknowledged and idle for `idleMs` (another may have just taken one). */
  async claim(consumer: string, idleMs: number, entryIds: string[]): Promise<Wakeup[]> {
    if (entryIds.length === 0) return [];
    const claimed = (await this.redis.xclaim(this.keys.wakeups(), WORKER_GROUP, consumer, idleMs, ...entryIds)) as Entries;
    return toWakeups(claimed.filter(([, fields]) => fields !== null));
  }

  /**
   * Removes the group's consumers whose heartbeat lapsed (dead or stopped processes) that hold nothing
   * and have not read for `idleMs`, never `except`; one holding entries is left for a claimer to empty.
   */
  async removeIdleConsumers(idleMs: number, except: string): Promise<number> {
    const key = this.keys.wakeups();
    const consumers = ((await this.redis.xinfo("CONSUMERS", key, WORKER_GROUP)) as unknown[][]).map((flat) => {
      const info = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < flat.length; i += 2) info.set(flat[i], flat[i + 1]);
      return { name: String(info.get("name")), pending: Number(info.get("pending")), idle: Number(info.get("idle")) };
    });
    const idle = consumers.filter((c) => c.name !== except && c.pending === 0 && c.idle >= idleMs).map((c) => c.name);
    if (idle.length === 0) return 0;
    const checks = this.redis.pipeline();
    for (const name of idle) checks.exists(this.keys.consumerAlive(name));
    const alive = ((await checks.exec()) ?? []).map(([err, n]) => err !== null || Number(n) > 0);
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
    const key = this.keys.wakeups();
    const group = await this.group();
    const delivered = group && group.pending > 0 ? ((await this.redis.xpending(key, WORKER_GROUP, "-", "+", scan)) as [string, string, number, number][]) : [];
    const owners = await this.sessionsOf(delivered.map(([entryId]) => entryId));
    const undelivered = toWakeups(await this.redis.xrange(key, group ? `(${group.lastDelivered}` : "-", "+", "COUNT", scan));
    return {
      wakeups: [
        ...delivered.filter((_, i) => owners[i] === sessionId).map(([entryId, consumer, idleMs, deliveries]) => ({ entryId, consumer, idleMs: Number(idleMs), deliveries: Number(deliveries) })),
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
    const key = this.keys.wakeups();
    const group = await this.group();
    const ageOf = (id: string | undefined) => (id ? Math.max(0, now - Number(id.split("-")[0])) / 1000 : 0);
    // Before any worker made the group, every entry is waiting.
    if (!group) return { backlog: await this.redis.xlen(key), oldestAgeSeconds: ageOf((await this.redis.xrange(key, "-", "+", "COUNT", 1))[0]?.[0]) };
    const [pending, oldestPending] = (await this.redis.xpending(key, WORKER_GROUP)) as [number, string | null, ...unknown[]];
    const firstUnread = oldestPending ? [] : await this.redis.xrange(key, `(${group.lastDelivered}`, "+", "COUNT", 1);
    return { backlog: Number(pending) + group.lag, oldestAgeSeconds: ageOf(oldestPending ?? firstUnread[0]?.[0]) };
  }

  /** The workers' group: how many entries it has delivered and not acknowledged, and the last it read; null before any worker made it. */
  private async group(): Promise<{ pending: number; lastDelivered: string; lag: number } | null> {
    let groups: unknown[][];
    try {
      groups = (await this.redis.xinfo("GROUPS", this.keys.wakeups())) as unknown[][];
    } catch (err) {
      if (String((err as Error).message).includes("no such key")) return null;
      throw err;
    }
    for (const flat of groups) {
      const info = new Map<unknown, unknown>();
      for (let i = 0; i + 1 < flat.length; i += 2) info.set(flat[i], flat[i + 1]);
      if (info.get("name") === WORKER_GROUP) return { pending: Number(info.get("pending")), lastDelivered: String(info.get("last-delivered-id")), lag: Number(info.get("lag") ?? 0) || 0 };
    }
    return null;
  }
}
