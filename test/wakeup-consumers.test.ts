import { expect } from "chai";
import { WakeupConsumer } from "../src/worker/wakeup-consumer.js";
import type { KickoffTimer } from "../src/worker/kickoff-timer.js";
import type { SessionActor } from "../src/worker/session-actor.js";
import { createLogger } from "../src/log.js";
import { createRedis, type RedisClient } from "../src/redis/client.js";
import { Intents } from "../src/sessions/redis/intents.js";
import type { Keys } from "../src/redis/keys.js";
import { Locks } from "../src/redis/locks.js";
import { shardReaders } from "../src/redis/shard-connections.js";
import { WORKER_GROUP, Wakeups } from "../src/sessions/redis/wakeups.js";
import type { SessionTransitions } from "../src/sessions/transitions.js";
import { env } from "./support/hooks.js";
import { otherDeployment } from "./support/server.js";
import { testKeys } from "./support/redis.js";
import { until } from "./support/sessions.js";

const consumersOf = async (redis: RedisClient, stream: string) =>
  ((await redis.xinfo("CONSUMERS", stream, WORKER_GROUP)) as unknown[][])
    .map((flat) => ({ name: String(flat[1]), pending: Number(flat[3]) }))
    .sort((a, b) => a.name.localeCompare(b.name));

describe("the wake-up group's consumers and takeovers (Redis)", () => {
  let keys: Keys;
  before(() => (keys = testKeys(otherDeployment("wakeups"))));
  let redis: RedisClient;
  let wakeups: Wakeups;

  beforeEach(async () => {
    redis = createRedis(env.redisUrl, "test");
    wakeups = new Wakeups(redis, keys);
    await redis.del(keys.wakeups(0));
    await wakeups.ensureGroup();
  });
  afterEach(async () => {
    await redis.del(keys.wakeups(0));
    redis.disconnect();
  });

  it("removes consumers that hold nothing and stopped reading, never one holding an entry, nor the caller", async () => {
    await redis.xadd(keys.wakeups(0), "*", "session", "ses_a");
    await redis.xadd(keys.wakeups(0), "*", "session", "ses_b");
    await redis.xreadgroup("GROUP", WORKER_GROUP, "holder", "COUNT", 1, "STREAMS", keys.wakeups(0), ">");
    await redis.xreadgroup("GROUP", WORKER_GROUP, "done", "COUNT", 1, "STREAMS", keys.wakeups(0), ">");
    const handed = (await redis.xpending(keys.wakeups(0), WORKER_GROUP, "-", "+", 10, "done")) as [string][];
    await redis.xack(keys.wakeups(0), WORKER_GROUP, handed[0]![0]);
    await redis.xadd(keys.wakeups(0), "*", "session", "ses_c");
    const mine = (await redis.xreadgroup("GROUP", WORKER_GROUP, "me", "COUNT", 1, "STREAMS", keys.wakeups(0), ">")) as [string, [string, string[]][]][];
    await redis.xack(keys.wakeups(0), WORKER_GROUP, mine[0]![1][0]![0]);
    await new Promise((r) => setTimeout(r, 60));

    expect(await wakeups.removeIdleConsumers(0, 10_000, "me"), "none idle that long").to.equal(0);
    expect(await wakeups.removeIdleConsumers(0, 50, "me")).to.equal(1);
    expect(await consumersOf(redis, keys.wakeups(0))).to.deep.equal([
      { name: "holder", pending: 1 },
      { name: "me", pending: 0 },
    ]);
  });

  it("finds the holders whose heartbeat lapsed, and names the sessions of what they hold, so a claimer takes those whose lock is free", async () => {
    const locks = new Locks(redis, keys);
    await redis.xadd(keys.wakeups(0), "*", "session", "ses_free");
    await redis.xadd(keys.wakeups(0), "*", "session", "ses_locked");
    await redis.xadd(keys.wakeups(0), "*", "session", "ses_live");
    await redis.xreadgroup("GROUP", WORKER_GROUP, "dead", "COUNT", 2, "STREAMS", keys.wakeups(0), ">");
    await redis.xreadgroup("GROUP", WORKER_GROUP, "live", "COUNT", 1, "STREAMS", keys.wakeups(0), ">");
    await wakeups.heartbeat("live", 10_000);
    await wakeups.heartbeat("dead", 1);
    await redis.set(keys.sessionLock("ses_locked"), "token", "PX", 10_000);
    await new Promise((r) => setTimeout(r, 60));

    expect(await wakeups.deadHolders(0, "me")).to.deep.equal(["dead"]);
    expect(await wakeups.deadHolders(0, "dead"), "never the caller").to.deep.equal([]);
    expect(await wakeups.heldBy(0, "dead", 10_000, 10), "none idle that long").to.deep.equal([]);
    const held = await wakeups.heldBy(0, "dead", 50, 10);
    expect(held.map((e) => e.sessionId)).to.deep.equal(["ses_free", "ses_locked"]);
    expect(await locks.sessionsLocked(held.map((e) => e.sessionId!))).to.deep.equal([false, true]);
    const claimed = await wakeups.claim(0, "me", 50, [held[0]!.entryId]);
    expect(claimed.map((w) => w.sessionId)).to.deep.equal(["ses_free"]);
    expect(await wakeups.claim(0, "other", 50, [held[0]!.entryId]), "just claimed: not idle").to.deep.equal([]);
    await Promise.all([redis.del(keys.sessionLock("ses_locked")), redis.del(keys.consumerAlive("live"))]);
  });

  it("keeps a wake-up whose session's record cannot be loaded (the store out of reach), and acknowledges it once a retry gets through", async () => {
    // The injected failing part is the actor's record load: the wake-up stream, its group and the locks are the real Redis.
    let failures = 3;
    const runs: string[] = [];
    const actor = {
      process: async (sessionId: string) => {
        runs.push(sessionId);
        if (failures-- > 0) throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:27017"), { name: "MongoServerSelectionError" });
      },
    };
    // The sweep is not run here (an hour apart): its parts are not needed.
    const consumer = new WakeupConsumer(
      shardReaders(env, redis, keys, "test-blocking"),
      wakeups,
      new Intents(redis, keys),
      new Locks(redis, keys),
      {} as SessionTransitions,
      actor as unknown as SessionActor,
      {} as KickoffTimer,
      createLogger("error", {}, () => undefined),
      {
        consumer: "kept",
        concurrency: 2,
        claimIdleMs: 2_000,
        sweepIntervalMs: 3_600_000,
        lockTtlMs: 3_000,
        consume: true,
      },
    );
    await consumer.start();
    try {
      await redis.xadd(keys.wakeups(0), "*", "session", "ses_unloadable");
      const pending = async () => ((await redis.xpending(keys.wakeups(0), WORKER_GROUP)) as [number])[0];
      await until(
        async () => runs.length,
        (n) => n >= 2,
        10_000,
        "a second try",
      );
      expect(await pending(), "kept while its record cannot be loaded").to.equal(1);
      await until(pending, (n) => n === 0, 20_000, "the wake-up acknowledged after a try got through");
      expect(runs).to.deep.equal(Array(4).fill("ses_unloadable"));
    } finally {
      await consumer.stop();
    }
  });
});
