import { expect } from "chai";
import { getEventListeners } from "node:events";
import { createRedis, type RedisClient } from "../src/redis/client.js";
import type { Keys } from "../src/redis/keys.js";
import { Locks } from "../src/redis/locks.js";
import { env } from "./support/hooks.js";
import { otherDeployment } from "./support/server.js";
import { testKeys } from "./support/redis.js";

describe("a session's turn lock and the process's shutdown (Redis)", () => {
  let keys: Keys;
  let redis: RedisClient;
  let locks: Locks;
  before(() => (keys = testKeys(otherDeployment("session-lock"))));
  beforeEach(() => {
    redis = createRedis(env.redisUrl, "test");
    locks = new Locks(redis, keys);
  });
  afterEach(async () => {
    await redis.del(keys.sessionLock("ses_lock"));
    redis.disconnect();
  });

  it("shutdown aborts the work's signal with its reason, and the lock is released", async () => {
    const shutdown = new AbortController();
    const outcome = await locks.withSessionLock("ses_lock", 5_000, shutdown.signal, async (_fence, lost) => {
      expect(lost.aborted).to.equal(false);
      expect(await locks.turnLock("ses_lock")).to.not.equal(null);
      const aborted = new Promise<unknown>((resolve) => lost.addEventListener("abort", () => resolve(lost.reason), { once: true }));
      shutdown.abort(new Error("stopping"));
      return aborted;
    });
    expect(outcome.acquired).to.equal(true);
    expect(String((outcome as { value: unknown }).value)).to.equal("Error: stopping");
    expect(await locks.turnLock("ses_lock")).to.equal(null);
  });

  it("work that ends by itself leaves no listener on the shutdown signal, however many times it runs", async () => {
    const shutdown = new AbortController();
    for (let i = 0; i < 20; i++) {
      const outcome = await locks.withSessionLock("ses_lock", 5_000, shutdown.signal, async (_fence, lost) => lost.aborted);
      expect(outcome).to.deep.equal({ acquired: true, value: false });
    }
    expect(getEventListeners(shutdown.signal, "abort")).to.have.length(0);
  });

  it("what is sent after the release runs once the lock is let go; nothing is sent when the work fails", async () => {
    const shutdown = new AbortController();
    const lockKey = keys.sessionLock("ses_lock");
    const outcome = await locks.withSessionLock(
      "ses_lock",
      5_000,
      shutdown.signal,
      async () => "done",
      () => redis.exists(lockKey),
    );
    expect(outcome).to.deep.equal({ acquired: true, value: "done", after: 0 });
    let sent = false;
    const failing = locks.withSessionLock(
      "ses_lock",
      5_000,
      shutdown.signal,
      async () => {
        throw new Error("the work failed");
      },
      async () => (sent = true),
    );
    expect(
      await failing.then(
        () => "resolved",
        (err: Error) => err.message,
      ),
    ).to.equal("the work failed");
    expect(sent).to.equal(false);
    expect(await locks.turnLock("ses_lock")).to.equal(null);
  });

  it("a shutdown that came before the lock was taken hands the work an aborted signal", async () => {
    const shutdown = new AbortController();
    shutdown.abort(new Error("already stopping"));
    const outcome = await locks.withSessionLock("ses_lock", 5_000, shutdown.signal, async (_fence, lost) => lost.aborted);
    expect(outcome).to.deep.equal({ acquired: true, value: true });
  });
});
