/**
 * The one XREAD loop of a process. A blocked XREAD holds its connection and Redis pays per blocked
 * client on every XADD, so all SSE readers of this process share one blocking connection: the loop
 * reads every watched stream in one `XREAD BLOCK` and fans entries out in memory. It is re-armed
 * (CLIENT UNBLOCK) when a stream is added; a stream nobody watches is dropped at the next read.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../log.js";
import { compareStreamIds } from "./stream-ids.js";

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

  /** Entries at or before what this subscriber already has are dropped: no duplicates. */
  send(entries: StreamEntry[]): void {
    const fresh = entries.filter(([id]) => compareStreamIds(id, this.lastDelivered) > 0);
    if (fresh.length === 0) return;
    this.lastDelivered = fresh[fresh.length - 1]![0];
    this.deliver(fresh);
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

export class StreamReader {
  private readonly watched = new Map<string, Watched>();
  private clientId: number | null = null;
  private blocked = false;
  private stopped = false;
  private wakeIdle: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly blocking: Redis,
    private readonly commands: Redis,
    private readonly log: Logger,
  ) {}

  /** Number of streams the loop reads; zero once every subscriber has gone. */
  get watchedStreams(): number {
    return this.watched.size;
  }

  /** Delivers entries of `key` after `fromId` (exclusive), in order, without gaps or duplicates. */
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

  private rearm(): void {
    if (this.wakeIdle) {
      this.wakeIdle();
      this.wakeIdle = null;
    } else if (this.blocked && this.clientId !== null) {
      this.commands.client("UNBLOCK", this.clientId).catch((err: unknown) => this.log.warn("could not re-arm the stream reader", { err }));
    }
  }

  private async run(): Promise<void> {
    this.clientId = Number(await this.blocking.client("ID"));
    while (!this.stopped) {
      if (this.watched.size === 0) {
        await new Promise<void>((resolve) => (this.wakeIdle = resolve));
        continue;
      }
      const streams = [...this.watched.entries()];
      let reply: [string, StreamEntry[]][] | null;
      try {
        this.blocked = true;
        reply = (await this.blocking.xread(
          "COUNT",
          READ_COUNT,
          "BLOCK",
          BLOCK_MS,
          "STREAMS",
          ...streams.map(([k]) => k),
          ...streams.map(([, w]) => w.lastId),
        )) as [string, StreamEntry[]][] | null;
      } catch (err) {
        if (this.stopped) return;
        this.log.warn("stream reader failed; retrying", { err });
        await new Promise((r) => setTimeout(r, 500));
        continue;
      } finally {
        this.blocked = false;
      }
      for (const [key, entries] of reply ?? []) {
        const stream = this.watched.get(key);
        if (!stream || entries.length === 0) continue;
        stream.lastId = entries[entries.length - 1]![0];
        for (const sub of stream.subscribers) sub.push(entries);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watched.clear();
    this.rearm();
    this.blocking.disconnect();
    await this.loop?.catch(() => undefined);
  }
}
