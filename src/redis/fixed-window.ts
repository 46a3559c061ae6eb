/** Fixed 60-second windows over Redis counters: the per-key ceiling and the per-subject allowances. */
import type { Redis } from "ioredis";
import { runScript } from "./client.js";
import { WINDOW_MS } from "./keys.js";

export interface WindowResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetAfterSeconds: number;
}

export function windowStart(now = Date.now()): number {
  return now - (now % WINDOW_MS);
}

export async function consume(redis: Redis, key: string, limit: number, cost: number, now = Date.now()): Promise<WindowResult> {
  const reply = await runScript(redis, "fixedWindow", [key], [limit, cost, WINDOW_MS]);
  const [allowed, used, pttl] = reply as [number, number, number];
  const untilWindowEnd = windowStart(now) + WINDOW_MS - now;
  const resetMs = pttl > 0 ? Math.min(pttl, untilWindowEnd) : untilWindowEnd;
  return {
    allowed: allowed === 1,
    limit,
    remaining: Math.max(0, limit - used),
    resetAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
  };
}

/** The `RateLimit-*` headers for a limited request (success or 429). */
export function rateLimitHeaders(result: WindowResult): Record<string, string> {
  return {
    "RateLimit-Limit": String(result.limit),
    "RateLimit-Remaining": String(result.remaining),
    "RateLimit-Reset": String(result.resetAfterSeconds),
  };
}
