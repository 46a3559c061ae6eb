/**
 * A page of the log (`EventLog.page`), on logs written as the commit writes them, with a small budget so
 * the cuts are easy to see: a page is cut by bytes before it is read, from the index of large events
 * and the overlay's replacement payloads; it is never empty while the log holds more; `more` is exact.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import type { RedisClient } from "../src/redis/client.js";
import { EventLog } from "../src/sessions/redis/event-log.js";
import type { Keys } from "../src/redis/keys.js";
import { masters, testKeys, testRedis } from "./support/redis.js";

const SMALL = 100;
const REPLACED = "user.custom_tool_result";
const BUDGET = 1_000;

interface Read {
  more: boolean;
  events: { sequence: number; envelope: Record<string, unknown>; live: string }[];
}

describe("a page of the log, cut by bytes before it is read", () => {
  let redis: RedisClient;
  let keys: Keys;
  let log: EventLog;
  let sessionId: string;

  before(() => {
    redis = testRedis();
    keys = testKeys();
    log = new EventLog(redis, keys, { pageBytes: BUDGET, largeBytes: SMALL, overlayBytes: 0 });
  });
  beforeEach(() => {
    sessionId = `ses_readlog_${randomUUID()}`;
  });
  afterEach(async () => {
    await redis.del(...keys.sessionKeys(sessionId));
  });
  after(() => redis.disconnect());

  /** An envelope of `bytes` bytes whose id starts it, as the commit writes one. */
  const envelope = (seq: number, bytes: number, type = "user.steer") => {
    const head = `{"id":"evt_${seq}","type":"${type}","sequence":${seq},"message":"`;
    return head + "x".repeat(bytes - head.length - 2) + '"}';
  };

  /** Appends events of these sizes (bytes) as the commit does: large ones (≥ SMALL) named in the index. */
  async function write(sizes: number[], type = "user.steer"): Promise<void> {
    let seq = Number((await redis.get(keys.sessionSeq(sessionId))) ?? 0);
    for (const bytes of sizes) {
      seq++;
      const env = envelope(seq, bytes, type);
      await redis.xadd(keys.sessionLog(sessionId), `${seq}-0`, "type", type, "seq", String(seq), "turn", "", "live", `${seq}-1`, "env", env);
      if (bytes >= SMALL) await redis.zadd(keys.sessionLarge(sessionId), seq, `${seq}:${Buffer.byteLength(env)}`);
      await redis.set(keys.sessionSeq(sessionId), String(seq));
    }
  }

  async function read(after: number, count: number, upTo?: number): Promise<Read> {
    const page = await log.page(sessionId, after, count, upTo);
    return { more: page.more, events: page.events.map(({ envelope, liveId }) => ({ sequence: envelope.sequence, envelope: { ...envelope }, live: liveId })) };
  }

  const sequences = (page: Read) => page.events.map((e) => e.sequence);

  it("small events: at most `count`, up to `upTo`, and `more` says exactly whether the log goes on", async () => {
    await write([80, 80, 80, 80, 80]);
    expect(sequences(await read(0, 3))).to.deep.equal([1, 2, 3]);
    expect((await read(0, 3)).more).to.equal(true);
    const rest = await read(3, 3);
    expect(sequences(rest)).to.deep.equal([4, 5]);
    expect(rest.more).to.equal(false);
    // A page that ends exactly at the log's end has nothing more, without reading past it.
    expect((await read(2, 3)).more).to.equal(false);
    const upTo = await read(0, 10, 2);
    expect(sequences(upTo)).to.deep.equal([1, 2]);
    expect(upTo.more).to.equal(false);
    expect(await read(5, 3)).to.deep.equal({ more: false, events: [] });
    expect(await read(9, 3)).to.deep.equal({ more: false, events: [] });
  });

  /** The commands `work` sends about this session, by name, as Redis receives them (MONITOR; a script's own commands left out). */
  async function commandsOf(work: () => Promise<unknown>): Promise<string[]> {
    const monitors = await Promise.all(masters(redis).map((node) => node.monitor()));
    const seen: string[] = [];
    const done = `${sessionId}:done`;
    const received = new Promise<void>((resolve) => {
      for (const monitor of monitors)
        monitor.on("monitor", (_time: string, args: string[], source: string) => {
          if (args.includes(done)) resolve();
          else if (source !== "lua" && args.some((a) => a.includes(sessionId))) seen.push(args[0]!.toLowerCase());
        });
    });
    try {
      await work();
      await redis.get(done);
      await received;
      return seen;
    } finally {
      for (const monitor of monitors) monitor.disconnect();
    }
  }

  it("reads a page of a few small events in one round trip, and a longer page on with plain commands", async () => {
    await write(Array.from({ length: 20 }, () => 80));
    await read(0, 1); // Redis has the script from then on (a first EVALSHA may be answered NOSCRIPT)
    const short = await commandsOf(() => read(0, 5));
    expect(short).to.deep.equal(["evalsha"]);
    const long = await commandsOf(async () => expect(sequences(await read(0, 20))).to.have.length(10));
    expect(long).to.deep.equal(["evalsha", "xrange", "hmget"]);
    // Either way the events are the same.
    expect((await read(0, 5)).events).to.deep.equal((await read(0, 20)).events.slice(0, 5));
  });

  it("reads an envelope's id whole when its JSON does not start with it", async () => {
    await redis.xadd(
      keys.sessionLog(sessionId),
      "1-0",
      "type",
      "user.steer",
      "seq",
      "1",
      "live",
      "1-1",
      "env",
      '{"type":"user.steer","id":"evt_late","sequence":1}',
    );
    await redis.set(keys.sessionSeq(sessionId), "1");
    await redis.hset(keys.sessionOverlay(sessionId), "evt_late:turn", "turn_late");
    expect((await read(0, 5)).events[0]!.envelope).to.include({ id: "evt_late", turnId: "turn_late" });
  });

  it("holds no more events than the budget has room for at the small bound", async () => {
    await write(Array.from({ length: 15 }, () => 80));
    const page = await read(0, 50);
    expect(sequences(page)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(page.more).to.equal(true);
  });

  it("an empty page never says there is more (entries missing under the counter: nothing to go on from)", async () => {
    await write([80, 80]);
    await redis.set(keys.sessionSeq(sessionId), "5");
    expect(await read(2, 3)).to.deep.equal({ more: false, events: [] });
    expect((await read(0, 3)).more).to.equal(true);
  });

  it("stops before the large event that would pass the budget, counting the others at the small bound", async () => {
    await write([80, 80, 600, 80, 600, 80]);
    // 100 + 100 + 600 + 100 = 900 fits; the next 600 would make 1,500: the page ends before sequence 5.
    const first = await read(0, 6);
    expect(sequences(first)).to.deep.equal([1, 2, 3, 4]);
    expect(JSON.stringify(first.events[2]!.envelope)).to.equal(envelope(3, 600));
    expect(first.more).to.equal(true);
    const second = await read(4, 6);
    expect(sequences(second)).to.deep.equal([5, 6]);
    expect(second.more).to.equal(false);
    // A large event that fits an empty page is not alone: 600 + 100 fits.
    expect(sequences(await read(2, 2))).to.deep.equal([3, 4]);
  });

  it("an event larger than the budget comes alone, and the page after it goes on", async () => {
    await write([5_000, 80, 80]);
    const alone = await read(0, 10);
    expect(sequences(alone)).to.deep.equal([1]);
    expect(JSON.stringify(alone.events[0]!.envelope)).to.have.length(5_000);
    expect(alone.more).to.equal(true);
    expect(sequences(await read(1, 10))).to.deep.equal([2, 3]);
  });

  it("merges the overlay, and counts a replacement payload against the budget", async () => {
    await write([80, 80, 80], REPLACED);
    const overlay = keys.sessionOverlay(sessionId);
    await redis.hset(overlay, "evt_1", '{"status":"processed","processedAt":"2026-01-01T00:00:00.000Z"}', "evt_1:turn", "turn_1");
    await redis.hset(overlay, "evt_2:payload", JSON.stringify({ type: "user.custom_tool_result", text: "y".repeat(850) }));
    // 3 × 100 + the payload's 893 bytes pass 1,000: the page ends before the event it replaces.
    const first = await read(0, 3);
    expect(sequences(first)).to.deep.equal([1]);
    expect(first.events[0]!.envelope).to.include({ status: "processed", processedAt: "2026-01-01T00:00:00.000Z", turnId: "turn_1" });
    expect(first.events[0]!.live).to.equal("1-1");
    expect(first.more).to.equal(true);
    // First in its page, it comes with its payload, alone.
    const second = await read(1, 3);
    expect(sequences(second)).to.deep.equal([2]);
    expect((second.events[0]!.envelope.payload as { text: string }).text).to.have.length(850);
    expect(second.more).to.equal(true);
    expect(sequences(await read(2, 3))).to.deep.equal([3]);
  });

  it("reads a replacement payload only for the type that has one", async () => {
    await write([80]);
    await redis.hset(keys.sessionOverlay(sessionId), "evt_1:payload", JSON.stringify("z".repeat(5_000)));
    expect((await read(0, 3)).events[0]!.envelope).to.not.have.property("payload");
  });

  it("any mix of sizes: pages in order without gaps, every page of several events within the budget", async () => {
    // A fixed pseudo-random mix (a linear congruential sequence), so a failure can be replayed.
    let state = 7;
    const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31);
    const sizes = Array.from({ length: 120 }, () => [80, 95, 150, 400, 900, 2_500][next() % 6]!);
    await write(sizes, REPLACED);
    const payloads = new Map<number, number>();
    for (let i = 0; i < sizes.length; i += 7) {
      const payload = JSON.stringify("p".repeat(next() % 700));
      await redis.hset(keys.sessionOverlay(sessionId), `evt_${i + 1}:payload`, payload);
      payloads.set(i + 1, payload.length);
    }
    for (const count of [1, 4, 10, 50]) {
      const seen: number[] = [];
      for (let after = 0, more = true; more;) {
        const page = await read(after, count);
        expect(page.events.length, `a page after ${after}`).to.be.within(1, count);
        if (page.events.length > 1) {
          const bytes = page.events.reduce((sum, e) => sum + sizes[e.sequence - 1]! + (payloads.get(e.sequence) ?? 0), 0);
          expect(bytes, `page after ${after} (count ${count})`).to.be.at.most(BUDGET);
        }
        // Cut no shorter than it must be: where no payload was involved, the next event would not have fit.
        const next = page.events.at(-1)!.sequence + 1;
        const involved = [...sequences(page), next].some((n) => payloads.has(n));
        if (page.more && page.events.length < count && !involved) {
          const cost = (n: number) => Math.max(sizes[n - 1]!, SMALL);
          expect(
            page.events.reduce((sum, e) => sum + cost(e.sequence), 0) + cost(next),
            `page after ${after} (count ${count}) was cut short`,
          ).to.be.greaterThan(BUDGET);
        }
        seen.push(...sequences(page));
        more = page.more;
        after = page.events.at(-1)!.sequence;
      }
      expect(seen, `count ${count}`).to.deep.equal(sizes.map((_, i) => i + 1));
    }
  });
});
