/** The process's Redis: the shared command connection, the key names of its layout (single node or cluster), and the blocking readers' connections. */
import type { Config } from "../config.js";
import { createRedis, isCluster } from "../redis/client.js";
import { Keys } from "../redis/keys.js";
import { shardReaders } from "../redis/shard-connections.js";

export function connectRedis(config: Config) {
  const redis = createRedis(config, "agent-sessions", { autoPipelining: true });
  const keys = new Keys(config.redisKeyPrefix, isCluster(config));
  /** One blocking connection per group of shards, labelled `name`. */
  const readers = (name: string) => shardReaders(config, redis, keys, name);
  return { redis, keys, readers };
}
