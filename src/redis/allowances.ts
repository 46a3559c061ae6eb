/**
 * Per-(organization, agent, subject) allowances: conversations and inbound messages per fixed
 * 60-second window, checked and counted in one atomic step.
 */
import type { Redis } from "ioredis";
import { ApiError } from "../http/errors.js";
import { runScript } from "./client.js";
import { consume, rateLimitHeaders, windowStart, type WindowResult } from "./fixed-window.js";
import { WINDOW_MS, type Keys } from "./keys.js";

export type AllowanceKind = "conversations" | "messages";

export interface AllowanceScope {
  orgId: string;
  agentId: string;
  subjectId: string;
}

export interface Granted {
  result: WindowResult;
  headers: Record<string, string>;
  /** Gives the points back, for a request that turned out to be rejected before persistence. */
  refund(): Promise<void>;
}

export class Allowances {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** Counts `cost` points or throws `429 rate_limited` with the spec's body and headers. */
  async take(scope: AllowanceScope, kind: AllowanceKind, limit: number, cost: number): Promise<Granted> {
    const now = Date.now();
    const key = this.keys.allowance(scope.orgId, scope.agentId, scope.subjectId, kind, windowStart(now));
    let result: WindowResult;
    try {
      result = await consume(this.redis, key, limit, cost, now);
    } catch {
      throw new ApiError(503, "server_error", "the allowance cannot be verified; retry with exponential backoff");
    }
    const headers = rateLimitHeaders(result);
    if (!result.allowed) {
      throw new ApiError(
        429,
        "rate_limited",
        `the ${kind} allowance of ${limit} per minute for this agent and subject is exhausted`,
        { ...headers, "Retry-After": String(result.resetAfterSeconds), "Cache-Control": "no-store" },
        {
          rateLimit: {
            resource: kind,
            limit,
            remaining: result.remaining,
            periodSeconds: WINDOW_MS / 1000,
            resetAfterSeconds: result.resetAfterSeconds,
          },
        },
      );
    }
    return {
      result,
      headers,
      refund: async () => {
        await runScript(this.redis, "refund", [key], [cost]);
      },
    };
  }
}
