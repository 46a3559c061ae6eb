/** The run's Redis as the service sees it: a single node, or a Redis Cluster when REDIS_URL is a `redis+cluster` URL. */
import { Cluster, type Redis } from "ioredis";
import { createRedis, isCluster, type RedisClient } from "../../src/redis/client.js";
import { Keys } from "../../src/redis/keys.js";
import { env } from "./hooks.js";

export function testRedis(name = "test"): RedisClient {
  return createRedis(env.redisUrl, name);
}

/** Key names of a namespace (the run's by default), in the layout the service uses on this Redis. */
export function testKeys(prefix = env.redisKeyPrefix): Keys {
  return new Keys(prefix, isCluster(env));
}

/** Every master's connection (the client itself on a single node): for commands about a node, not a key (SCAN, CLIENT LIST). */
export function masters(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis];
}
