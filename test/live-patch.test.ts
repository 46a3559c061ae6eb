/**
 * A live-only frame that carries a replacement payload (`session.tool_updated`), as the commit writes
 * it: patched (without that payload, naming the event) only when it is large and the same commit
 * writes the payload to the overlay; whole otherwise. `EventLog.completed` gives it back whole.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { draft, type Draft, type Payload } from "../src/sessions/domain/events.js";
import type { Plan } from "../src/sessions/domain/session-state.js";
import { createLogger } from "../src/log.js";
import type { RedisClient } from "../src/redis/client.js";
import { EventAppender } from "../src/sessions/redis/event-appender.js";
import { EventLog } from "../src/sessions/redis/event-log.js";
import { parseEntry, toLiveFrame } from "../src/sessions/redis/log-entries.js";
import type { Keys } from "../src/redis/keys.js";
import { LARGE_EVENT_BYTES } from "../src/sessions/redis/large-events.js";
import { LiveEcho } from "../src/streaming/redis/live-echo.js";
import { testKeys, testRedis } from "./support/redis.js";

const REPLACED = "evt_running";

const result = (chars: number): Payload => ({
  type: "user.custom_tool_result",
  tool_use_id: "evt_use",
  content: [{ type: "text", text: "x".repeat(chars) }],
  status: "completed",
});

describe("a live-only frame carrying a replacement payload, as the commit writes it (Redis)", () => {
  let redis: RedisClient;
  let keys: Keys;
  let appender: EventAppender;
  let log: EventLog;
  let sessionId: string;

  before(() => {
    redis = testRedis();
    keys = testKeys();
    appender = new EventAppender(redis, keys, new LiveEcho(keys, createLogger("error")));
    log = new EventLog(redis, keys);
  });
  beforeEach(async () => {
    sessionId = `ses_patch_${randomUUID()}`;
    await redis.hset(keys.sessionState(sessionId), "v", "1", "status", "idle");
  });
  afterEach(async () => {
    await redis.del(...keys.sessionKeys(sessionId));
  });
  after(() => redis.disconnect());

  const updated = (payload: Payload): Draft => ({
    ...draft(
      sessionId,
      `evt_${randomUUID()}`,
      { type: "session.tool_updated", tool_use_id: "evt_use", event_id: REPLACED, payload },
      { now: new Date().toISOString() },
    ),
    liveOnly: true,
    replacementOf: REPLACED,
  });

  /** Commits the frame, with the overlay's replacement when `written`; the live stream's entry it made. */
  async function commit(frame: Draft, written: Payload | null): Promise<Record<string, string>> {
    const plan: Plan = {
      drafts: [frame],
      state: {},
      statuses: written ? [{ eventId: REPLACED, status: "received", processedAt: null, payload: written }] : [],
      wake: false,
    };
    const applied = await appender.apply(sessionId, plan, { reads: [], fence: "", projection: null });
    expect(applied.ok).to.equal(true);
    const entries = await redis.xrange(keys.sessionLive(sessionId), "-", "+");
    expect(entries).to.have.length(1);
    const [id, fields] = entries[0]!;
    const live = toLiveFrame(id, fields);
    if (live.envelope === null) throw new Error("a live-only frame is never a stub");
    expect(await log.completed(sessionId, live)).to.deep.equal(whole(frame));
    return parseEntry(fields);
  }

  /** The frame as readers must see it. */
  const whole = (d: Draft) => ({
    id: d.id,
    type: d.type,
    sessionId: d.sessionId,
    sequence: null,
    turnId: d.turnId,
    status: d.status,
    payload: d.payload,
    processedAt: d.processedAt,
    createdAt: d.createdAt,
  });

  it("large, with its payload written by the same commit: patched, and completed from the overlay", async () => {
    const payload = result(LARGE_EVENT_BYTES);
    const entry = await commit(updated(payload), payload);
    expect(entry.patch).to.equal(REPLACED);
    expect(Buffer.byteLength(entry.env!)).to.be.below(1_000);
    expect(JSON.parse(entry.env!).payload.payload).to.equal(null);
    expect(JSON.parse((await redis.hget(keys.sessionOverlay(sessionId), `${REPLACED}:payload`))!)).to.deep.equal(payload);
  });

  it("large, but the commit writes no such payload: whole, so nothing is left to a read that would find none", async () => {
    const entry = await commit(updated(result(LARGE_EVENT_BYTES)), null);
    expect(entry.patch).to.equal(undefined);
    expect(JSON.parse(entry.env!).payload.payload).to.deep.equal(result(LARGE_EVENT_BYTES));
  });

  it("large, and the commit writes another payload for the event: whole", async () => {
    const entry = await commit(updated(result(LARGE_EVENT_BYTES)), result(10));
    expect(entry.patch).to.equal(undefined);
    expect(JSON.parse(entry.env!).payload.payload).to.deep.equal(result(LARGE_EVENT_BYTES));
  });

  it("small: whole, even with its payload in the overlay", async () => {
    const payload = result(100);
    const entry = await commit(updated(payload), payload);
    expect(entry.patch).to.equal(undefined);
    expect(JSON.parse(entry.env!).payload.payload).to.deep.equal(payload);
  });

  it("a patched frame whose payload is gone (the session was deleted) completes to nothing", async () => {
    const payload = result(LARGE_EVENT_BYTES);
    await commit(updated(payload), payload);
    const [[id, fields]] = (await redis.xrange(keys.sessionLive(sessionId), "-", "+")) as [string, string[]][];
    await redis.del(keys.sessionOverlay(sessionId));
    const live = toLiveFrame(id!, fields!);
    if (live.envelope === null) throw new Error("a live-only frame is never a stub");
    expect(live.replacementOf).to.equal(REPLACED);
    expect(await log.completed(sessionId, live)).to.equal(null);
  });
});
