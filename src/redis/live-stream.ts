/**
 * A session's capped live stream, the transport SSE tails: transport-only frames (message deltas) are
 * written here directly, under the writer's turn lock; durable events arrive with their appends.
 */
import type { Redis } from "ioredis";
import type { Draft } from "../domain/events.js";
import { runScript } from "./client.js";
import { LIVE_MAXLEN, liveOnlyJson } from "./event-appender.js";
import type { Keys } from "./keys.js";

/** Reply code of `append-live-2.lua` when the token is not the lock's value. */
const FENCED = -2;

export class LiveStream {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** Appends a live-only frame (`sequence: null`, never in history); false when `fence` no longer holds the lock. */
  async append(sessionId: string, fence: string, frame: Draft): Promise<boolean> {
    const reply = await runScript(this.redis, "appendLive", this.keys.appendLiveKeys(sessionId), [fence, LIVE_MAXLEN, frame.type, liveOnlyJson(frame)]);
    return reply !== FENCED;
  }

  /** The id of the newest frame, or "0-0" when there is none. */
  async lastId(sessionId: string): Promise<string> {
    const [newest] = await this.redis.xrevrange(this.keys.sessionLive(sessionId), "+", "-", "COUNT", 1);
    return newest ? newest[0] : "0-0";
  }
}
