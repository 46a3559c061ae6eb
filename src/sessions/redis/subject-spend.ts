/**
 * What a subject has spent with one agent, across its sessions: each session's spend (the usage
 * accounting's `cost_usd` total) kept as a field of one hash with their sum (`record-spend-1.lua`).
 * Sessions report their running total, never an increment, so a report repeated or lost to a crash
 * cannot count a turn twice or forget it for good.
 */
import { runScript, type RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";

export interface SpendScope {
  orgId: string;
  agentId: string;
  subjectId: string;
}

const MICROS = 1_000_000;

export class SubjectSpend {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Records the session's spend so far (USD) and answers the subject's total (USD). */
  async record(scope: SpendScope, sessionId: string, spentUsd: number): Promise<number> {
    const key = this.keys.subjectSpend(scope.orgId, scope.agentId, scope.subjectId);
    const total = await runScript(this.redis, "recordSpend", [key], [sessionId, Math.round(spentUsd * MICROS)]);
    return Number(total) / MICROS;
  }

  /** The subject's total (USD). */
  async total(scope: SpendScope): Promise<number> {
    const total = await this.redis.hget(this.keys.subjectSpend(scope.orgId, scope.agentId, scope.subjectId), "#total");
    return Number(total ?? 0) / MICROS;
  }
}
