/**
 * Fixed 60-second windows, checked and counted in one atomic step: the per-(organization, agent,
 * subject) allowances of conversations and inbound messages, and the per-key request ceiling. A send's
 * messages are counted by its commit instead (`event-appender.ts`: in the same script on a single node,
 * by a step of its own before it on a Redis Cluster, and why).
 */
import { AppError, unavailable, type RateLimitStanding } from "../../errors.js";
import { runScript, type RedisClient } from "../../redis/client.js";
import { consume, windowStart, type WindowResult } from "../../redis/fixed-window.js";
import type { Keys } from "../../redis/keys.js";

export type AllowanceKind = "conversations" | "messages";

export interface AllowanceScope {
  orgId: string;
  agentId: string;
  subjectId: string;
}

export interface Granted {
  standing: RateLimitStanding;
  /** Gives the points back, for a request that turned out to be rejected before persistence. */
  refund(): Promise<void>;
}

/** The refusal of an allowance with no room left, with the window's standing. */
export function allowanceExhausted(kind: AllowanceKind, standing: RateLimitStanding): AppError {
  return new AppError("rate_limited", `the ${kind} allowance of ${standing.limit} per minute for this agent and subject is exhausted`, {
    rateLimit: { ...standing, resource: kind },
  });
}

function standingOf({ allowed: _, ...standing }: WindowResult): RateLimitStanding {
  return standing;
}

export class Allowances {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  private async count(key: string, limit: number, cost: number, what: string, now = Date.now()): Promise<WindowResult> {
    try {
      return await consume(this.redis, key, limit, cost, now);
    } catch (err) {
      throw unavailable(`the ${what} cannot be verified; retry with exponential backoff`, err);
    }
  }

  /** Counts `cost` points, or throws `rate_limited` with the window's standing. */
  async take(scope: AllowanceScope, kind: AllowanceKind, limit: number, cost: number): Promise<Granted> {
    const now = Date.now();
    const key = this.keys.allowance(scope.orgId, scope.agentId, scope.subjectId, kind, windowStart(now));
    const result = await this.count(key, limit, cost, "allowance", now);
    if (!result.allowed) throw allowanceExhausted(kind, standingOf(result));
    return { standing: standingOf(result), refund: () => runScript(this.redis, "refund", [key], [cost]).then(() => undefined) };
  }

  /** Counts one request against an API key's ceiling, or throws `rate_limited`. */
  async request(keyId: string, limit: number): Promise<void> {
    const result = await this.count(this.keys.keyCeiling(keyId, windowStart()), limit, 1, "request ceiling");
    if (!result.allowed) {
      throw new AppError("rate_limited", `this API key allows ${limit} requests per minute`, { rateLimit: standingOf(result) });
    }
  }
}
