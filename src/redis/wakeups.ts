/**
 * The wake-up stream: the at-least-once hand-off of "this session has work" to any worker, published
 * by the commit that made the work (`append-events-10.lua`) and read by the `workers` consumer group. Entries are acknowledged once the session is handled; those a dead
 * consumer left unacknowledged are claimed by another. (The `pending` intent set is the backstop for a
 * wake-up that was never published: `intents.ts`.)
 */
import type { Redis } from "ioredis";
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

  /** Entries left unacknowledged for `idleMs` by any consumer, now `consumer`'s. */
  async claimStale(consumer: string, idleMs: number, count: number): Promise<Wakeup[]> {
    const [, claimed] = (await this.redis.xautoclaim(this.keys.wakeups(), WORKER_GROUP, consumer, idleMs, "0-0", "COUNT", count)) as [string, Entries];
    return toWakeups(claimed.filter(([, fields]) => fields !== null));
  }
}
