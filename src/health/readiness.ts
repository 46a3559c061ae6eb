/** Readiness: whether this process can reach MongoDB and Redis, each within a bound. */
import type { RedisClient } from "../redis/client.js";
import { pingMongo, type Mongo } from "../mongo/mongo.js";
import type { healthSchema } from "../../schemas/health.js";

const CHECK_TIMEOUT_MS = 2_000;

export type CheckResult = (typeof healthSchema.properties.status.enum)[number];

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timed out")), CHECK_TIMEOUT_MS).unref())]);
}

async function check(fn: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await withTimeout(fn());
    return "ok";
  } catch {
    return "unavailable";
  }
}

export class HealthService {
  constructor(
    private readonly mongo: Mongo,
    private readonly redis: RedisClient,
  ) {}

  async readiness(): Promise<{ ready: boolean; checks: { mongodb: CheckResult; redis: CheckResult } }> {
    const [mongodb, redis] = await Promise.all([check(() => pingMongo(this.mongo.db)), check(() => this.redis.ping())]);
    return { ready: mongodb === "ok" && redis === "ok", checks: { mongodb, redis } };
  }
}
