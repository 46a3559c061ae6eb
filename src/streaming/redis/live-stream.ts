/**
 * A session's capped live stream, the transport SSE tails: transport-only frames (message deltas) are
 * written here directly, under the writer's turn lock; durable events arrive with their appends.
 */
import type { Draft } from "../../sessions/domain/events.js";
import { REFUSED, runScript, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";
import type { LiveEcho } from "./live-echo.js";
import type { StreamEntry, StreamReader, Subscription } from "./stream-reader.js";

/** The live stream keeps about this many frames; a reader further behind refills durable events from the log. */
export const LIVE_MAXLEN = 1_000;

/** A live-only frame's envelope: it never gets a sequence. */
export function liveOnlyJson(d: Draft): string {
  const { liveOnly: _, replacementOf: __, id, type, sessionId, ...rest } = d;
  return JSON.stringify({ id, type, sessionId, sequence: null, ...rest });
}

export class LiveStream {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly echo: LiveEcho,
  ) {}

  /** Appends a live-only frame (`sequence: null`, never in history); false when `fence` no longer holds the lock. */
  async append(sessionId: string, fence: string, frame: Draft): Promise<boolean> {
    const env = liveOnlyJson(frame);
    const reply = await runScript(this.redis, "appendLive", this.keys.appendLiveKeys(sessionId), [fence, LIVE_MAXLEN, frame.type, env]);
    if (reply === REFUSED.FENCED) return false;
    const [afterId, id] = reply as [string, string];
    this.echo.appended(sessionId, afterId, () => [[id, ["type", frame.type, "env", env]]]);
    return true;
  }

  /** Delivers the session's live frames after `fromId` through the process's shared reader. */
  follow(reader: StreamReader, sessionId: string, fromId: string, deliver: (entries: StreamEntry[]) => void): Promise<Subscription> {
    return reader.subscribe(this.keys.shardOf(sessionId), this.keys.sessionLive(sessionId), fromId, deliver);
  }

  /** Up to `count` frames after `afterId`, up to `end` (an id, inclusive, or `(id`, exclusive). */
  async range(sessionId: string, afterId: string, end: string, count: number): Promise<StreamEntry[]> {
    return (await this.redis.xrange(this.keys.sessionLive(sessionId), `(${afterId}`, end, "COUNT", count)) as StreamEntry[];
  }

  /** The id of the newest frame, or "0-0" when there is none. */
  async lastId(sessionId: string): Promise<string> {
    const [newest] = await this.redis.xrevrange(this.keys.sessionLive(sessionId), "+", "-", "COUNT", 1);
    return newest ? newest[0] : "0-0";
  }
}
