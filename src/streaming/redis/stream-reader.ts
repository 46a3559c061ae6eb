/**
 * The XREAD loops of a process. A blocked XREAD holds its connection and Redis pays per blocked
 * client on every XADD, so all SSE readers of this process share one blocking connection per group of
 * shards (one on a single node, one per shard on a Redis Cluster, where one XREAD reads one slot): the
 * loop reads every watched stream of its shards in one `XREAD BLOCK` and fans entries out in memory. It
 * is re-armed (CLIENT UNBLOCK) when a stream is added; a stream nobody watches is dropped at the next read.
 *
 * Entries this process appended itself are offered to the loop as their append answers (`offer`), so
 * its subscribers need not wait for the XREAD to come back with them: they are taken when they follow
 * the last entry the loop has, so nothing is skipped, and the read that returns them later is deduplicated.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../../log.js";
import type { RedisClient } from "../../redis/client.js";
import type { ShardConnection, ShardReader } from "../../redis/shard-connections.js";
import { compareStreamIds } from "../../redis/stream-ids.js";

export type StreamEntry = [id: string, fields: string[]];
type Deliver = (entries: StreamEntry[]) => void;

interface Watched {
  lastId: string;
  subscribers: Set<Subscriber>;
}

class Subscriber {
  private lastDelivered: string;
  private buffered: StreamEntry[] | null = [];

  constructor(
    fromId: string,
    private readonly deliver: Deliver,
  ) {
    this.lastDelivered = fromId;
  }

  push(entries: StreamEntry[]): void {
    if (this.buffered) this.buffered.push(...entries);
    else this.send(entries);
  }

  /** Entries at or before what this subscriber already has are dropped, also repeats within a batch (held offers and reads overlap): no duplicates. */
  send(entries: StreamEntry[]): void {
    const fresh: StreamEntry[] = [];
    for (const entry of entries) {
      if (compareStreamIds(entry[0], this.lastDelivered) <= 0) continue;
      fresh.push(entry);
      this.lastDelivered = entry[0];
    }
    if (fresh.length > 0) this.deliver(fresh);
  }

  release(): void {
    const held = this.buffered ?? [];
    this.buffered = null;
    this.send(held);
  }
}

export interface Subscription {
  close(): void;
}

const BLOCK_MS = 5_000;
const READ_COUNT = 500;

/** The process's shared reader of live streams: one loop per group of shards. */
export class StreamReader {
  private readonly loops = new Map<number, ShardLoop>();

  constructor(readers: ShardReader[], commands: RedisClient, log: Logger) {
    for (const { shards, connection } of readers) {
      const loop = new ShardLoop(connection, commands, log);
      for (const shard of shards) this.loops.set(shard, loop);
    }
  }

  /** Number of streams the loops read; zero once every subscriber has gone. */
  get watchedStreams(): number {
    let n = 0;
    for (const loop of new Set(this.loops.values())) n += loop.watchedStreams;
    return n;
  }

  /**
   * Entries of `key` this process just appended, the first right after `afterId` (the stream's last id
   * before the append). Delivered at once when the loop has read up to `afterId`; otherwise left to the
   * loop's read. `entries` is called only then. True when delivered.
   */
  offer(shard: number, key: string, afterId: string, entries: () => StreamEntry[]): boolean {
    return this.loops.get(shard)?.offer(key, afterId, entries) ?? false;
  }

  /** Delivers entries of `key` (a stream of `shard`) after `fromId` (exclusive), in order, without gaps or duplicates. */
  subscribe(shard: number, key: string, fromId: string, deliver: Deliver): Promise<Subscription> {
    return this.loops.get(shard)!.subscribe(key, fromId, deliver);
  }

  async stop(): Promise<void> {
    await Promise.all([...new Set(this.loops.values())].map((loop) => loop.stop()));
  }
}

/** One blocking connection's loop, over the watched streams of its shards. */
class ShardLoop {
  private readonly watched = new Map<string, Watched>();
  private clientId: number | null = null;
  private blocked = false;
  private stopped = false;
  private wakeIdle: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly connection: ShardConnection,
    private readonly commands: RedisClient,
    private readonly log: Logger,
  ) {}

  get watchedStreams(): number {
    return this.watched.size;
  }

  async subscribe(key: string, fromId: string, deliver: Deliver): Promise<Subscription> {
    this.loop ??= this.run();
    const sub = new Subscriber(fromId, deliver);
    let stream = this.watched.get(key);
    if (!stream) {
      stream = { lastId: fromId, subscribers: new Set([sub]) };
      this.watched.set(key, stream);
      sub.release();
      this.rearm();
    } else {
      stream.subscribers.add(sub);
      // Catch up from the subscriber's cursor to where the loop is; the loop's later reads are buffered.
      let cursor = fromId;
      while (compareStreamIds(cursor, stream.lastId) < 0) {
        const page = (await this.commands.xrange(key, `(${cursor}`, stream.lastId, "COUNT", READ_COUNT)) as StreamEntry[];
        if (page.length === 0) break;
        sub.send(page);
        cursor = page[page.length - 1]![0];
      }
      sub.release();
    }
    const watched = stream;
    return {
      close: () => {
        watched.subscribers.delete(sub);
        if (watched.subscribers.size === 0 && this.watched.get(key) === watched) this.watched.delete(key);
      },
    };
  }

  offer(key: string, afterId: string, entries: () => StreamEntry[]): boolean {
    const stream = this.watched.get(key);
    if (!stream || stream.lastId !== afterId) return false;
    const offered = entries();
    if (offered.length === 0) return false;
    for (const sub of stream.subscribers) sub.push(offered);
    // Moved only once every subscriber has them: should a delivery throw, the loop's read brings them again.
    stream.lastId = offered[offered.length - 1]![0];
    return true;
  }

  private rearm(): void {
    if (this.wakeIdle) {
      this.wakeIdle();
      this.wakeIdle = null;
    } else if (this.blocked && this.clientId !== null) {
      this.connection.unblock(this.clientId).catch((err: unknown) => this.log.warn("could not re-arm the stream reader", { err }));
    }
  }

  private async run(): Promise<void> {
    let blocking: Redis | null = null;
    while (!this.stopped) {
      if (this.watched.size === 0) {
        await new Promise<void>((resolve) => (this.wakeIdle = resolve));
        continue;
      }
      const streams = [...this.watched.entries()];
      let reply: [string, StreamEntry[]][] | null;
      try {
        // Another connection when the slot moved: its id is the one to unblock.
        const current = this.connection.get();
        if (current !== blocking) {
          this.clientId = null;
          this.clientId = Number(await current.client("ID"));
          blocking = current;
        }
        this.blocked = true;
        reply = (await current.xread("COUNT", READ_COUNT, "BLOCK", BLOCK_MS, "STREAMS", ...streams.map(([k]) => k), ...streams.map(([, w]) => w.lastId))) as
          [string, StreamEntry[]][] | null;
      } catch (err) {
        if (this.stopped) return;
        this.connection.failed();
        this.log.warn("stream reader failed; retrying", { err });
        await new Promise((r) => setTimeout(r, 500));
        continue;
      } finally {
        this.blocked = false;
      }
      for (const [key, entries] of reply ?? []) {
        const stream = this.watched.get(key);
        if (!stream || entries.length === 0) continue;
        // Never back: entries offered since the read was sent may be ahead of what it returned.
        const last = entries[entries.length - 1]![0];
        if (compareStreamIds(last, stream.lastId) > 0) stream.lastId = last;
        for (const sub of stream.subscribers) sub.push(entries);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watched.clear();
    this.rearm();
    this.connection.disconnect();
    await this.loop?.catch(() => undefined);
  }
}
