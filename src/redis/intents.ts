/**
 * Intent sets: a session is marked by the commit (`append-events-10.lua`, atomically with the append)
 * whose follow-up another process may have to finish, and cleared once the follow-up is done. Two of them:
 * - `pending`: the session has work for a worker (the wake-up, published by the same commit, is the
 *   fast path; a wake-up lost with its stream, or a worker that died before it looked, leaves the mark,
 *   and the workers' sweep serves it);
 * - `projections`: the session's MongoDB record has a status to follow (the recovery sweep repairs a
 *   record whose writer died, or failed, before writing it).
 * Both are scored by the time (ms) they were marked. A `pending` member is the session id, cleared only
 * if nobody marked it again after the clearer started acting. A `projections` member is one writer's
 * (`<sessionId> <nonce>`): concurrent writers of one session each keep their own mark, so one that
 * finishes never clears the mark of one that died.
 */
import type { Redis } from "ioredis";
import { runScript, sortedMembersStartingWith } from "./client.js";
import type { Keys } from "./keys.js";

/** The session a `projections` member belongs to. */
export function sessionOfProjection(member: string): string {
  const space = member.indexOf(" ");
  return space < 0 ? member : member.slice(0, space);
}

export class Intents {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** Clears the session's `pending` mark unless it was set again after `since` (ms). */
  async clearPending(sessionId: string, since: number): Promise<void> {
    await runScript(this.redis, "clearIntent", [this.keys.pending()], [sessionId, since]);
  }

  /** Removes writers' `projections` members. */
  async clearProjections(members: string[]): Promise<void> {
    if (members.length > 0) await this.redis.zrem(this.keys.projections(), ...members);
  }

  /** Sessions marked `pending` before `olderThan` (ms) and not cleared since, oldest first. */
  async duePending(olderThan: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.pending(), "-inf", olderThan, "LIMIT", 0, limit);
  }

  /** Sessions whose records transitions are changing now (at most `limit`, oldest marks first). */
  async changing(limit: number): Promise<string[]> {
    return [...new Set((await this.redis.zrange(this.keys.projections(), 0, limit - 1)).map(sessionOfProjection))];
  }

  /** `projections` members marked before `olderThan` (ms): writers that died, or are very late. */
  async dueProjections(olderThan: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.projections(), "-inf", olderThan, "LIMIT", 0, limit);
  }

  /** When (ms) the session was marked `pending` and not cleared since; null when it is not. */
  async pendingSince(sessionId: string): Promise<number | null> {
    const score = await this.redis.zscore(this.keys.pending(), sessionId);
    return score === null ? null : Number(score);
  }

  /** The session's `projections` members (writers of its record not done yet) with when (ms) each was marked. */
  async projectionsOf(sessionId: string): Promise<{ member: string; since: number }[]> {
    return (await sortedMembersStartingWith(this.redis, this.keys.projections(), `${sessionId} `)).map(({ member, score }) => ({ member, since: score }));
  }
}
