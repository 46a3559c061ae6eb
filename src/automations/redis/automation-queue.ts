/**
 * The automations' schedule in Redis: a sorted set of next run times, claimed atomically by any number
 * of schedulers (`claim-automations-3.lua`) and released with the next time (`release-automation-3.lua`).
 * MongoDB's record is the truth; a due member is a wake-up that makes a scheduler read it. A member is
 * only ever moved earlier while present (ZADD LT), so a stale time wakes a record early, never late;
 * writers put the time in Redis before they change the record, and a periodic repair re-adds every
 * active record's time, covering a crash between the two and a Redis that lost writes.
 */
import { REFUSED, runScript, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

export class AutomationQueue {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Makes the automation due at `at` (ms) unless it is due earlier already. */
  async schedule(id: string, at: number): Promise<void> {
    await this.redis.zadd(this.keys.automationQueueKeys()[0], "LT", at, id);
  }

  /** As `schedule`, for many (the repair), in one round trip per thousand. */
  async scheduleMany(entries: { id: string; at: number }[]): Promise<void> {
    for (let i = 0; i < entries.length; i += 1_000) {
      const chunk = entries.slice(i, i + 1_000);
      await this.redis.zadd(this.keys.automationQueueKeys()[0], "LT", ...chunk.flatMap((e) => [e.at, e.id]));
    }
  }

  /** Drops a deleted automation's wake-up (a left-over one finds no record and is dropped when due). */
  async forget(id: string): Promise<void> {
    await this.redis.zrem(this.keys.automationQueueKeys()[0], id);
  }

  /** Claims up to `limit` due automations (lapsed claims first) for `leaseMs`. */
  async claim(now: number, leaseMs: number, limit: number, token: string): Promise<string[]> {
    return (await runScript(this.redis, "claimAutomations", this.keys.automationQueueKeys(), [now, leaseMs, limit, token])) as string[];
  }

  /** Ends the claim and makes the automation due at `next` (ms, null: not at all); false when the claim was taken over. */
  async release(id: string, token: string, next: number | null): Promise<boolean> {
    const reply = await runScript(this.redis, "releaseAutomation", this.keys.automationQueueKeys(), [id, token, next ?? ""]);
    return reply !== REFUSED.FENCED;
  }

  /** The earliest due time (ms), or null when nothing is scheduled: how long a scheduler may sleep. */
  async earliest(): Promise<number | null> {
    const [, score] = await this.redis.zrange(this.keys.automationQueueKeys()[0], 0, 0, "WITHSCORES");
    return score === undefined ? null : Number(score);
  }

  /** Takes the repair turn for `periodMs` unless another scheduler has it. */
  async takeRepairTurn(periodMs: number, token: string): Promise<boolean> {
    return (await this.redis.set(this.keys.automationRepair(), token, "PX", periodMs, "NX")) === "OK";
  }
}
