/** Fixed 60-second windows over Redis counters: the per-key ceiling and the per-subject allowances. */
import type { RateLimitStanding } from "../errors.js";
import { runScript, type RedisClient } from "./client.js";
import { WINDOW_MS } from "./keys.js";

export interface WindowResult extends RateLimitStanding {
  allowed: boolean;
}

export function windowStart(now = Date.now()): number {
  return now - (now % WINDOW_MS);
}

export async function consume(redis: RedisClient, key: string, limit: number, cost: number, now = Date.now()): Promise<WindowResult> {
  const reply = await runScript(redis, "fixedWindow", [key], [limit, cost, WINDOW_MS]);
  const [allowed, used, pttl] = reply as [number, number, number];
  return { allowed: allowed === 1, ...standing(limit, used, pttl, now) };
}

/** A window's standing from its counter: points used and the counter key's remaining life (ms). */
export function standing(limit: number, used: number, pttl: number, now = Date.now()): RateLimitStanding {
  const untilWindowEnd = windowStart(now) + WINDOW_MS - now;
  const resetMs = pttl > 0 ? Math.min(pttl, untilWindowEnd) : untilWindowEnd;
  return {
    limit,
    remaining: Math.max(0, limit - used),
    resetAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    periodSeconds: WINDOW_MS / 1000,
  };
}
