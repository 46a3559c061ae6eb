import { expect } from "chai";
import { newId } from "../src/ids.js";
import { createLogger } from "../src/log.js";
import type { RedisClient } from "../src/redis/client.js";
import type { Keys } from "../src/redis/keys.js";
import { LiveEcho } from "../src/streaming/redis/live-echo.js";
import { shardReaders } from "../src/redis/shard-connections.js";
import { StreamReader, type StreamEntry } from "../src/streaming/redis/stream-reader.js";
import { env } from "./support/hooks.js";
import { testKeys, testRedis } from "./support/redis.js";
import { until } from "./support/sessions.js";

/**
 * A process's own appends reach its subscribers when the append answers, not when the blocked XREAD
 * comes back; only when they follow what the reader has, so the order holds and nothing is delivered twice.
 */
describe("own appends handed to the shared reader", () => {
  let keys: Keys;
  let redis: RedisClient;
  let reader: StreamReader;
  let echo: LiveEcho;

  before(() => {
    keys = testKeys(`${env.redisKeyPrefix}:echo`);
    redis = testRedis("echo-test");
    echo = new LiveEcho(keys, createLogger("error"));
    reader = echo.attach(new StreamReader(shardReaders(env, redis, keys, "echo-test"), redis, createLogger("error")));
  });
  after(async () => {
    await reader.stop();
    await redis.quit();
  });

  const entry = (id: string, text: string): StreamEntry => [id, ["type", "agent.message", "env", text]];
  const append = (sessionId: string, [id, fields]: StreamEntry) => redis.xadd(keys.sessionLive(sessionId), id, ...fields);
  const follow = async (sessionId: string) => {
    const seen: string[] = [];
    const subscription = await reader.subscribe(keys.shardOf(sessionId), keys.sessionLive(sessionId), "0-0", (entries) =>
      seen.push(...entries.map(([id]) => id)),
    );
    return { seen, close: () => subscription.close() };
  };

  it("delivers an append right after the reader's position at once, and its read later does not deliver it again", async () => {
    const sessionId = newId("ses");
    const { seen, close } = await follow(sessionId);
    // Offered before it is in Redis: delivered now, so it cannot have come from a read.
    echo.appended(sessionId, "0-0", () => [entry("5-1", "first")]);
    expect(seen).to.deep.equal(["5-1"]);
    await append(sessionId, entry("5-1", "first"));
    await append(sessionId, entry("6-1", "second"));
    await until(
      async () => seen.length,
      (n) => n >= 2,
    );
    await new Promise((r) => setTimeout(r, 100));
    close();
    expect(seen).to.deep.equal(["5-1", "6-1"]);
  });

  it("leaves an append that does not follow the reader's position to the read, which keeps the order", async () => {
    const sessionId = newId("ses");
    const { seen, close } = await follow(sessionId);
    // Another process's 7-1 is not read here yet: this process's 8-1, which follows it, must wait for the read.
    expect(reader.offer(keys.shardOf(sessionId), keys.sessionLive(sessionId), "7-1", () => [entry("8-1", "ours")])).to.equal(false);
    expect(seen).to.deep.equal([]);
    await append(sessionId, entry("7-1", "theirs"));
    await append(sessionId, entry("8-1", "ours"));
    await until(
      async () => seen.length,
      (n) => n >= 2,
    );
    await new Promise((r) => setTimeout(r, 100));
    close();
    expect(seen).to.deep.equal(["7-1", "8-1"]);
  });

  it("reaches nobody for a stream no subscriber of this process follows", async () => {
    expect(reader.offer(keys.shardOf("ses_none"), keys.sessionLive("ses_none"), "0-0", () => [entry("1-1", "x")])).to.equal(false);
  });
});
