/** ioredis connections (a single node's, or a Redis Cluster's) with the project's Lua scripts defined as commands. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { storeErrors } from "../telemetry/metrics.js";
import { luaScriptsDir } from "../paths.js";

/** A connection to a single node, or to a Redis Cluster (ioredis' cluster client, which routes each command by its keys' slot). */
export type RedisClient = Redis | Cluster;

/** Where Redis is: REDIS_URL, and the seed nodes of a cluster (REDIS_CLUSTER_NODES, `host:port` each), if any. */
export interface RedisTarget {
  redisUrl: string;
  redisClusterNodes?: string[];
}

const CLUSTER_SCHEME = /^rediss?\+cluster:$/;

/** A Redis Cluster when REDIS_CLUSTER_NODES names its nodes, or REDIS_URL's scheme is `redis+cluster` (or `rediss+cluster`). */
export function isCluster(target: RedisTarget): boolean {
  return (target.redisClusterNodes?.length ?? 0) > 0 || CLUSTER_SCHEME.test(new URL(target.redisUrl).protocol);
}

/** Script files are named `<name>-<numberOfKeys>.lua`; each becomes the command `<name>` in camelCase. */
function defineScripts(redis: RedisClient): void {
  for (const file of readdirSync(luaScriptsDir)) {
    const match = /^(.+)-(\d+)\.lua$/.exec(file);
    if (!match) continue;
    const name = match[1]!.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    redis.defineCommand(name, {
      numberOfKeys: Number(match[2]),
      lua: readFileSync(join(luaScriptsDir, file), "utf8"),
    });
  }
}

/** The refusals the scripts reply with (see each script's `Output:` block), named once. */
export const REFUSED = { STALE: -1, FENCED: -2, MISSING: -3, RATE_LIMITED: -4, DONE: -5 } as const;

export type ScriptReply = (string | number | null | ScriptReply)[] | string | number | null;

/** Calls a script defined by `defineScripts`; the typed door to ioredis's dynamic commands. */
export async function runScript(redis: RedisClient, name: string, keys: string[], args: (string | number)[]): Promise<ScriptReply> {
  const command = (redis as unknown as Record<string, (...a: (string | number)[]) => Promise<ScriptReply>>)[name];
  if (typeof command !== "function") throw new Error(`Lua script ${name} is not defined`);
  return command.call(redis, ...keys, ...args);
}

/**
 * `name` labels the connection in CLIENT LIST, with the process id, so operators can tell pods apart.
 * `autoPipelining` sends the commands issued in one tick as one write (the shared command connection:
 * a send's reads go out together); never on a connection that blocks (XREAD BLOCK).
 *
 * A command whose reply a dropped connection lost is never sent again: a commit that checks only the
 * fields its plan read (`append-events-11.lua`) could apply twice, and a counter count twice. Its caller
 * sees the error instead, and the intents the commit marked (if it ran) get its follow-up done.
 */
export function createRedis(target: RedisTarget | string, name: string, opts: { autoPipelining?: boolean } = {}): RedisClient {
  const where = typeof target === "string" ? { redisUrl: target } : target;
  const options = nodeOptions(where.redisUrl, name);
  let redis: RedisClient;
  if (isCluster(where)) {
    const url = new URL(where.redisUrl);
    const seeds = where.redisClusterNodes?.length ? where.redisClusterNodes : [url.host];
    redis = new Cluster(
      seeds.map((node) => ({ host: hostOf(node), port: Number(node.slice(node.lastIndexOf(":") + 1)) })),
      {
        redisOptions: options,
        enableAutoPipelining: opts.autoPipelining ?? false,
        // ioredis finds no key in XGROUP and XINFO (a subcommand comes first): batched, they went to the wrong node, unredirectable.
        autoPipeliningIgnoredCommands: ["xgroup", "xinfo"],
        enableOfflineQueue: true,
        // Reads go to masters only: a replica may not hold a commit yet.
        scaleReads: "master",
      },
    );
  } else {
    redis = new Redis(where.redisUrl, { ...options, enableAutoPipelining: opts.autoPipelining ?? false, lazyConnect: false });
  }
  defineScripts(redis);
  // ioredis reconnects by itself; the listener counts what would otherwise be printed as unhandled.
  redis.on("error", () => storeErrors.inc({ store: "redis" }));
  return redis;
}

/** A node's host in `host:port` (an IPv6 address in brackets loses them). */
function hostOf(node: string): string {
  return node.slice(0, node.lastIndexOf(":")).replace(/^\[(.*)\]$/, "$1");
}

/** Options of every node connection: the URL's credentials and TLS, the project's retry policy. */
function nodeOptions(redisUrl: string, name: string): RedisOptions {
  const url = new URL(redisUrl);
  return {
    connectionName: `${name}-${process.pid}`,
    maxRetriesPerRequest: 2,
    autoResendUnfulfilledCommands: false,
    enableOfflineQueue: true,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol.startsWith("rediss") ? { tls: {} } : {}),
  };
}

/**
 * A plain connection to one node of the target (`host:port`; null: the single node), with no scripts:
 * blocking reads of one slot's keys (`shard-connections.ts`).
 */
export function connectNode(target: RedisTarget, node: string | null, name: string): Redis {
  const options = nodeOptions(target.redisUrl, name);
  const redis =
    node === null ? new Redis(target.redisUrl, options) : new Redis({ ...options, host: hostOf(node), port: Number(node.slice(node.lastIndexOf(":") + 1)) });
  redis.on("error", () => storeErrors.inc({ store: "redis" }));
  return redis;
}

/** Members of a sorted set that start with `prefix`, with their scores: ZSCAN, for operators' reads, not hot paths. */
export async function sortedMembersStartingWith(redis: RedisClient, key: string, prefix: string): Promise<{ member: string; score: number }[]> {
  const match = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  const found: { member: string; score: number }[] = [];
  let cursor = "0";
  do {
    const [next, flat] = await redis.zscan(key, cursor, "MATCH", match, "COUNT", 1000);
    for (let i = 0; i + 1 < flat.length; i += 2) found.push({ member: flat[i]!, score: Number(flat[i + 1]) });
    cursor = next;
  } while (cursor !== "0");
  return found;
}
