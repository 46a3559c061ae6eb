/**
 * Agents' limits, cached in Redis for the event hot path and the worker's budget checks: the allowances
 * and the per-subject spend budget. Every pod shares the cache and an agent's limit change drops the
 * entry right after it is stored, so a change applies at once everywhere; the expiry bounds staleness
 * should a pod die between the two writes.
 */
import type { RedisClient } from "../../redis/client.js";
import type { RateLimits } from "../domain/agent-config.js";
import type { Keys } from "../../redis/keys.js";

const TTL_MS = 60_000;
/** How a budget of none is cached: a field is present either way, so an entry is never mistaken for a miss. */
const NONE = "none";

export interface AgentLimits extends RateLimits {
  subjectBudgetUsd: number | null;
}

export class AgentLimitsCache {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async get(agentId: string, load: () => Promise<AgentLimits | null>): Promise<AgentLimits | null> {
    const key = this.keys.agentLimits(agentId);
    const [conversations, messages, budget] = await this.redis.hmget(key, "conversationsPerMinute", "messagesPerMinute", "subjectBudgetUsd");
    if (conversations && messages && budget) {
      return { conversationsPerMinute: Number(conversations), messagesPerMinute: Number(messages), subjectBudgetUsd: budget === NONE ? null : Number(budget) };
    }
    const limits = await load();
    if (limits) {
      const fields = {
        conversationsPerMinute: limits.conversationsPerMinute,
        messagesPerMinute: limits.messagesPerMinute,
        subjectBudgetUsd: limits.subjectBudgetUsd ?? NONE,
      };
      await this.redis.multi().hset(key, fields).pexpire(key, TTL_MS).exec();
    }
    return limits;
  }

  async invalidate(agentId: string): Promise<void> {
    await this.redis.del(this.keys.agentLimits(agentId));
  }
}
