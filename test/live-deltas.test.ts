import { expect } from "chai";
import { LiveDeltas } from "../src/worker/live-deltas.js";
import { draft } from "../src/sessions/domain/events.js";
import { isAppError } from "../src/errors.js";
import { newId } from "../src/ids.js";
import { createRedis, type RedisClient } from "../src/redis/client.js";
import { Keys } from "../src/redis/keys.js";
import { createLogger } from "../src/log.js";
import { LiveEcho } from "../src/streaming/redis/live-echo.js";
import { LiveStream } from "../src/streaming/redis/live-stream.js";
import { env } from "./support/hooks.js";

/** A model call's deltas go out without a round trip each, in order, and a lost lock still stops them. */
describe("streamed deltas", () => {
  let redis: RedisClient;
  const keys = new Keys(`${env.redisKeyPrefix}:deltas`);
  let live: LiveStream;
  before(() => {
    redis = createRedis(env.redisUrl, "deltas-test", { autoPipelining: true });
    live = new LiveStream(redis, keys, new LiveEcho(keys, createLogger("error")));
  });
  after(async () => redis.quit());

  const delta = (sessionId: string, text: string) =>
    draft(
      sessionId,
      newId("evt"),
      { type: "agent.message", content: [{ type: "text", text }], delta: true },
      { turnId: "turn_1", now: new Date().toISOString() },
    );
  const texts = async (sessionId: string) =>
    (await redis.xrange(keys.sessionLive(sessionId), "-", "+")).map(([, fields]) => JSON.parse(fields[3]!).payload.content[0].text as string);

  it("appends every delta in the order sent, more than are in flight at once, and flush waits for them", async () => {
    const sessionId = newId("ses");
    await redis.set(keys.sessionLock(sessionId), "fence_a");
    const deltas = new LiveDeltas(live, sessionId, "fence_a");
    const sent = Array.from({ length: 200 }, (_, i) => `part ${i}`);
    for (const text of sent) await deltas.send(delta(sessionId, text));
    await deltas.flush();
    expect(await texts(sessionId)).to.deep.equal(sent);
  });

  it("a lost lock: nothing is appended, flush throws lock_lost, and the next delta is refused", async () => {
    const sessionId = newId("ses");
    await redis.set(keys.sessionLock(sessionId), "fence_b");
    const deltas = new LiveDeltas(live, sessionId, "fence_a");
    await deltas.send(delta(sessionId, "one"));
    await deltas.send(delta(sessionId, "two"));
    const flushed = await deltas.flush().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAppError(flushed, "lock_lost"), String(flushed)).to.equal(true);
    const next = await deltas.send(delta(sessionId, "three")).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAppError(next, "lock_lost"), String(next)).to.equal(true);
    expect(await texts(sessionId)).to.deep.equal([]);
  });

  it("a lock lost mid-stream is found by a later delta once the in-flight bound is reached", async () => {
    const sessionId = newId("ses");
    await redis.set(keys.sessionLock(sessionId), "fence_b");
    const deltas = new LiveDeltas(live, sessionId, "fence_a");
    const err = await (async () => {
      for (let i = 0; i < 1000; i++) await deltas.send(delta(sessionId, `part ${i}`));
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAppError(err, "lock_lost"), String(err)).to.equal(true);
  });
});
