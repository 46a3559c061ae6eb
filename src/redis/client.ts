/** ioredis connections with the project's Lua scripts defined as commands. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { storeErrors } from "../metrics.js";
import { luaScriptsDir } from "../paths.js";

/** Script files are named `<name>-<numberOfKeys>.lua`; each becomes the command `<name>` in camelCase. */
function defineScripts(redis: Redis): void {
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
export const REFUSED = { STALE: -1, FENCED: -2, MISSING: -3, RATE_LIMITED: -4 } as const;

export type ScriptReply = (string | number | null | ScriptReply)[] | string | number | null;

/** Calls a script defined by `defineScripts`; the typed door to ioredis's dynamic commands. */
export async function runScript(redis: Redis, name: string, keys: string[], args: (string | number)[]): Promise<ScriptReply> {
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
 * fields its plan read (`append-events-10.lua`) could apply twice, and a counter count twice. Its caller
 * sees the error instead, and the intents the commit marked (if it ran) get its follow-up done.
 */
export function createRedis(url: string, name: string, opts: { autoPipelining?: boolean } = {}): Redis {
  const redis = new Redis(url, {
    connectionName: `${name}-${process.pid}`,
    enableAutoPipelining: opts.autoPipelining ?? false,
    maxRetriesPerRequest: 2,
    autoResendUnfulfilledCommands: false,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
  defineScripts(redis);
  // ioredis reconnects by itself; the listener counts what would otherwise be printed as unhandled.
  redis.on("error", () => storeErrors.inc({ store: "redis" }));
  return redis;
}

/** Members of a sorted set that start with `prefix`, with their scores: ZSCAN, for operators' reads, not hot paths. */
export async function sortedMembersStartingWith(redis: Redis, key: string, prefix: string): Promise<{ member: string; score: number }[]> {
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
