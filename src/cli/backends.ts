/**
 * The backends of an operator command, found as the service finds them (`loadConfig`): MongoDB at
 * `MONGO_URL`, Redis at `REDIS_URL` under `REDIS_KEY_PREFIX`, the local services' (with the passwords
 * `scripts/services.sh` made) for either left unset. One that does not answer is an
 * `unavailable` error naming its variable and where it looked, so a shell without the service's
 * environment (the defaults point at this machine) is told so instead of waiting.
 */
import type { Db } from "mongodb";
import { loadConfig, type Config } from "../config.js";
import { unavailable } from "../errors.js";
import { createRedis, isCluster, type RedisClient } from "../redis/client.js";
import { withLocalState } from "../local-state.js";
import { Keys } from "../redis/keys.js";
import { connectMongo, ensureIndexes } from "../mongo/mongo.js";

/** The service's config as this shell's environment and the local state give it (never making a vault key). */
export function operatorConfig(): Config {
  return loadConfig(withLocalState(process.env, { vaultKey: false }).env);
}

/** The URL with any password masked, so a message can say where it looked. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(not a URL)";
  }
}

/** Where a value came from, for messages: `NAME=value`, or that NAME is not set and the default was used. */
export function setting(name: string, value: string): string {
  return process.env[name] ? `${name}=${value}` : `${name} not set, so ${value}`;
}

/** Runs `work` with the database; `indexes` for commands that write (a unique index guards organization names). */
export async function withMongo<T>(config: Config, work: (db: Db) => Promise<T>, opts: { indexes?: boolean } = {}): Promise<T> {
  let mongo;
  try {
    mongo = await connectMongo(config.mongoUrl);
  } catch (err) {
    throw unavailable(`cannot reach MongoDB (${setting("MONGO_URL", shownUrl(config.mongoUrl))}): ${(err as Error).message}`, err);
  }
  try {
    if (opts.indexes) await ensureIndexes(mongo.db);
    return await work(mongo.db);
  } finally {
    await mongo.client.close();
  }
}

export interface RedisBackend {
  redis: RedisClient;
  keys: Keys;
  /** Where the keys were looked for, for messages: the URL (masked) and the prefix. */
  where: string;
}

/** Runs `work` with a Redis connection (answering, or the error says why not) and the service's key names. */
export async function withRedis<T>(config: Config, work: (backend: RedisBackend) => Promise<T>): Promise<T> {
  const redis = createRedis(config, "ops-cli");
  let failure: Error | undefined;
  // Reconnection errors are reported here, not as unhandled events.
  redis.on("error", (err: Error) => (failure = err));
  try {
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw unavailable(`cannot reach Redis (${setting("REDIS_URL", shownUrl(config.redisUrl))}): ${(failure ?? (err as Error)).message}`, err);
  }
  try {
    return await work({
      redis,
      keys: new Keys(config.redisKeyPrefix, isCluster(config)),
      where: `${setting("REDIS_KEY_PREFIX", config.redisKeyPrefix)}; ${setting("REDIS_URL", shownUrl(config.redisUrl))}`,
    });
  } finally {
    redis.disconnect();
  }
}
