/**
 * Agents' allowance limits, cached in Redis for the event hot path. Every pod shares the cache and an
 * agent's limit change drops the entry right after it is stored, so a change applies at once
 * everywhere; the expiry bounds staleness should a pod die between the two writes.
 */
import type { Redis } from "ioredis";
import type { RateLimits } from "../domain/agent-config.js";
import type { Keys } from "./keys.js";

const TTL_MS = 60_000;

export class RateLimitCache {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async get(agentId: string, load: () => Promise<RateLimits | null>): Promise<RateLimits | null> {
    const key = this.keys.agentLimits(agentId);
    const cached = await this.redis.hmget(key, "conversationsPerMinute", "messagesPerMinute");
    if (cached[0] && cached[1]) return { conversationsPerMinute: Number(cached[0]), messagesPerMinute: Number(cached[1]) };
    const limits = await load();
    if (limits) {
      await this.redis.multi().hset(key, { ...limits }).pexpire(key, TTL_MS).exec();
    }
    return limits;
  }

  async invalidate(agentId: string): Promise<void> {
    await this.redis.del(this.keys.agentLimits(agentId));
  }
}
