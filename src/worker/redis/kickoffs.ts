/**
 * Kickoff deadlines of custom tool calls: a sorted set of `<sessionId> <callId>` scored by the time (ms)
 * the call must have had a first result by. A worker adds a call's deadline before the commit that
 * makes it wait (a deadline whose commit never happened finds no waiting call and is dropped), so no
 * waiting call is ever without one; the sweep takes the due ones, oldest first, and never scans sessions.
 */
import { sortedMembersStartingWith, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

export interface DueKickoff {
  member: string;
  sessionId: string;
  callId: string;
}

export class Kickoffs {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async expect(sessionId: string, callIds: string[], deadlineMs: number): Promise<void> {
    if (callIds.length === 0) return;
    await this.redis.zadd(this.keys.kickoffs(), ...callIds.flatMap((id) => [deadlineMs, `${sessionId} ${id}`]));
  }

  async due(nowMs: number, limit: number): Promise<DueKickoff[]> {
    const members = await this.redis.zrangebyscore(this.keys.kickoffs(), "-inf", nowMs, "LIMIT", 0, limit);
    return members.map((member) => {
      const [sessionId = "", callId = ""] = member.split(" ");
      return { member, sessionId, callId };
    });
  }

  async done(members: string[]): Promise<void> {
    if (members.length > 0) await this.redis.zrem(this.keys.kickoffs(), ...members);
  }

  /** The session's custom tool calls still waiting for a first result, with their deadlines (ms). */
  async of(sessionId: string): Promise<{ callId: string; deadlineMs: number }[]> {
    return (await sortedMembersStartingWith(this.redis, this.keys.kickoffs(), `${sessionId} `)).map(({ member, score }) => ({
      callId: member.slice(sessionId.length + 1),
      deadlineMs: score,
    }));
  }
}
