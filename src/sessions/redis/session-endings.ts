/**
 * Session endings: a stream of notices of archived and deleted sessions that every worker reads on its
 * own (no consumer group), to kill the session's background processes on its machine and, for a deleted
 * one, remove its workspace. A worker reads it from the start when it starts (the stream keeps about
 * ENDINGS_MAXLEN entries), so an ending announced while it was down is still seen.
 */
import type { RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

export const ENDINGS_MAXLEN = 10_000;

export type SessionEnd = "archived" | "deleted";

export interface SessionEnding {
  sessionId: string;
  end: SessionEnd;
}

type Entries = [string, string[]][];

function field(fields: string[], name: string): string | undefined {
  const at = fields.indexOf(name);
  return at >= 0 ? fields[at + 1] : undefined;
}

export class SessionEndings {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async announce(sessionId: string, end: SessionEnd): Promise<void> {
    await this.redis.xadd(this.keys.sessionEndings(), "MAXLEN", "~", ENDINGS_MAXLEN, "*", "session", sessionId, "end", end);
  }

  /** Up to `count` notices after the entry `after` (`0` for the first), and the id of the last one read. */
  async after(after: string, count: number): Promise<{ last: string; endings: SessionEnding[] }> {
    const reply = (await this.redis.xread("COUNT", count, "STREAMS", this.keys.sessionEndings(), after)) as [string, Entries][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    const endings = entries.flatMap(([, fields]): SessionEnding[] => {
      const sessionId = field(fields, "session");
      const end = field(fields, "end");
      return sessionId !== undefined && (end === "archived" || end === "deleted") ? [{ sessionId, end }] : [];
    });
    return { last: entries.at(-1)?.[0] ?? after, endings };
  }
}
