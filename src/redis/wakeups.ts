/**
 * Wake-ups: the API's at-least-once hand-off of "this session has work" to any worker.
 *
 * Two parts. The pending set (a sorted set scored by time) is written *before* the event append, as
 * an intent, and cleared by the worker once it has looked; the wake-up stream entry is published
 * after the append for the fast path. An API pod dying between the append and the publish leaves the
 * session in the pending set, where the workers' sweep finds it.
 */
import type { Redis } from "ioredis";
import { runScript } from "./client.js";
import type { Keys } from "./keys.js";

export const WORKER_GROUP = "workers";
const MAXLEN = 100_000;

export class Wakeups {
  constructor(
    private readonly redis: Redis,
    readonly keys: Keys,
  ) {}

  async markPending(sessionId: string): Promise<void> {
    await this.redis.zadd(this.keys.pending(), Date.now(), sessionId);
  }

  async publish(sessionId: string): Promise<void> {
    await this.redis.xadd(this.keys.wakeups(), "MAXLEN", "~", MAXLEN, "*", "session", sessionId);
  }

  /** Clears the intent unless it was set again after `seenAt`. */
  async clearPending(sessionId: string, seenAt: number): Promise<void> {
    await runScript(this.redis, "clearPending", [this.keys.pending()], [sessionId, seenAt]);
  }

  /** Sessions marked pending before `olderThan` (ms) and not cleared since. */
  async due(olderThan: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.pending(), "-inf", olderThan, "LIMIT", 0, limit);
  }

  async ensureGroup(): Promise<void> {
    try {
      await this.redis.xgroup("CREATE", this.keys.wakeups(), WORKER_GROUP, "0", "MKSTREAM");
    } catch (err) {
      if (!String((err as Error).message).includes("BUSYGROUP")) throw err;
    }
  }
}
