/**
 * Intent sets: a session is marked by the commit (`append-events-11.lua`, atomically with the append)
 * whose follow-up another process may have to finish, and cleared once the follow-up is done. Two of them:
 * - `pending`: the session has work for a worker (the wake-up, published by the same commit, is the
 *   fast path; a wake-up lost with its stream, or a worker that died before it looked, leaves the mark,
 *   and the workers' sweep serves it);
 * - `projections`: the session's MongoDB record has a status to follow (the recovery sweep repairs a
 *   record whose writer died, or failed, before writing it).
 * Both are scored by the time (ms) they were marked. A `pending` member is the session id, cleared only
 * if nobody marked it again after the clearer started acting. A `projections` member is one writer's
 * (`<sessionId> <nonce>`): concurrent writers of one session each keep their own mark, so one that
 * finishes never clears the mark of one that died. Each shard has its own pair (one on a single node),
 * in the slot of its sessions' keys (`keys.ts`); the sweeps read every shard's.
 */
import { runScript, sortedMembersStartingWith, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

/** The session a `projections` member belongs to. */
export function sessionOfProjection(member: string): string {
  const space = member.indexOf(" ");
  return space < 0 ? member : member.slice(0, space);
}

export class Intents {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Clears the session's `pending` mark unless it was set again after `since` (ms). */
  async clearPending(sessionId: string, since: number): Promise<void> {
    await runScript(this.redis, "clearIntent", [this.keys.pending(this.keys.shardOf(sessionId))], [sessionId, since]);
  }

  /** Removes writers' `projections` members (one command per shard they are in). */
  async clearProjections(members: string[]): Promise<void> {
    const byShard = new Map<number, string[]>();
    for (const member of members) {
      const shard = this.keys.shardOf(sessionOfProjection(member));
      byShard.set(shard, [...(byShard.get(shard) ?? []), member]);
    }
    await Promise.all([...byShard].map(([shard, of]) => this.redis.zrem(this.keys.projections(shard), ...of)));
  }

  /** Reads every shard's set with `read`, oldest first, at most `limit` in all. */
  private async everyShard(read: (shard: number) => Promise<string[]>, limit: number): Promise<string[]> {
    const found = await Promise.all(this.keys.allShards().map(read));
    return found.length === 1 ? found[0]! : found.flat().slice(0, limit);
  }

  /** Sessions marked `pending` before `olderThan` (ms) and not cleared since (at most `limit`, oldest first in each shard). */
  async duePending(olderThan: number, limit: number): Promise<string[]> {
    return this.everyShard((shard) => this.redis.zrangebyscore(this.keys.pending(shard), "-inf", olderThan, "LIMIT", 0, limit), limit);
  }

  /** Sessions whose records transitions are changing now (at most `limit`, oldest marks first in each shard). */
  async changing(limit: number): Promise<string[]> {
    return [...new Set((await this.everyShard((shard) => this.redis.zrange(this.keys.projections(shard), 0, limit - 1), limit)).map(sessionOfProjection))];
  }

  /** `projections` members marked before `olderThan` (ms): writers that died, or are very late. */
  async dueProjections(olderThan: number, limit: number): Promise<string[]> {
    return this.everyShard((shard) => this.redis.zrangebyscore(this.keys.projections(shard), "-inf", olderThan, "LIMIT", 0, limit), limit);
  }

  /** When (ms) the session was marked `pending` and not cleared since; null when it is not. */
  async pendingSince(sessionId: string): Promise<number | null> {
    const score = await this.redis.zscore(this.keys.pending(this.keys.shardOf(sessionId)), sessionId);
    return score === null ? null : Number(score);
  }

  /** The session's `projections` members (writers of its record not done yet) with when (ms) each was marked. */
  async projectionsOf(sessionId: string): Promise<{ member: string; since: number }[]> {
    const key = this.keys.projections(this.keys.shardOf(sessionId));
    return (await sortedMembersStartingWith(this.redis, key, `${sessionId} `)).map(({ member, score }) => ({ member, since: score }));
  }
}
