/** Wake-ups: the API's at-least-once hand-off of "this session has work" to any worker. */
import type { Redis } from "ioredis";
import type { Keys } from "./keys.js";

export const WORKER_GROUP = "workers";
const MAXLEN = 100_000;

export async function publishWakeup(redis: Redis, keys: Keys, sessionId: string): Promise<void> {
  await redis.xadd(keys.wakeups(), "MAXLEN", "~", MAXLEN, "*", "session", sessionId);
}

export async function ensureWorkerGroup(redis: Redis, keys: Keys): Promise<void> {
  try {
    await redis.xgroup("CREATE", keys.wakeups(), WORKER_GROUP, "0", "MKSTREAM");
  } catch (err) {
    if (!String((err as Error).message).includes("BUSYGROUP")) throw err;
  }
}
