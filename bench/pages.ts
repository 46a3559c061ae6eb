/**
 * What reading a page of history costs now that pages are cut by bytes (`EventLog.page`), beside the
 * read it replaced, measured in the same run on the same logs:
 *   (a) small events: a page of 100 (the counter and the index of large events, then XRANGE to the
 *       planned end, then the overlay: three round trips) against XRANGE then HMGET of the page's
 *       overlay fields (two round trips), in alternating rounds; latency percentiles and Redis's own
 *       time per page (INFO commandstats, every command, so the service's background work is in both);
 *   (b) large events (half of a log's events about 1 MB): what one page holds and costs, against what XRANGE COUNT 100
 *       would have loaded at once.
 * Uses MONGO_URL/REDIS_URL (defaults: the local services), its own database and Redis namespace, and
 * removes both when done. Options: BENCH_EVENTS (small events, default 2,000), BENCH_READS (pages
 * read per side, default 2,000), BENCH_LARGE_EVENTS (default 40), BENCH_ROUNDS (default 4).
 */
import { performance } from "node:perf_hooks";
import { Redis } from "ioredis";
import { parseEntry } from "../src/sessions/redis/log-entries.js";
import { PAGE_BYTES } from "../src/sessions/redis/large-events.js";
import { fill } from "./logs.js";
import { conditions, fixed, redisUrl, startService, summary, type Service } from "./support.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000);
const READS = Number(process.env.BENCH_READS ?? 2_000);
const LARGE_EVENTS = Number(process.env.BENCH_LARGE_EVENTS ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PAGE = 100;
const MB = 2 ** 20;

/** Redis's total microseconds in commands so far (INFO commandstats). */
async function redisTime(redis: Redis): Promise<number> {
  let usec = 0;
  for (const [, spent] of (await redis.info("commandstats")).matchAll(/usec=(\d+),/g)) usec += Number(spent);
  return usec;
}

async function main(): Promise<void> {
  const service: Service = await startService("bench-pages");
  const raw = new Redis(redisUrl);
  try {
    const { eventLog } = service.runtime.core.redis;
    const keys = service.runtime.core.connections.keys;
    const agent = await service.post("/v1/agents", {
      name: "bench",
      modelName: "mock/bench",
      systemPrompt: "",
      skills: [],
      tools: [],
      rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 },
    });
    const open = async (subjectId: string) => String((await service.post("/v1/sessions", { agentId: agent.id, subjectId })).id);
    const small = await open("small");
    await fill(service, small, EVENTS);

    const starts = Array.from({ length: READS }, (_, i) => (i * 7919) % (EVENTS - PAGE));
    const byPage = async (after: number) => (await eventLog.page(small, after, PAGE)).events.length;
    const byTwoReads = async (after: number) => {
      const entries = await raw.xrange(keys.sessionLog(small), `(${after}-0`, "+", "COUNT", PAGE);
      const envelopes = entries.map(([, fields]) => JSON.parse(parseEntry(fields).env!) as { id: string });
      await raw.hmget(keys.sessionOverlay(small), ...envelopes.flatMap((e) => [e.id, `${e.id}:turn`, `${e.id}:payload`]));
      return envelopes.length;
    };
    const timed = async (read: (after: number) => Promise<number>, from: number, count: number) => {
      const out: number[] = [];
      for (let i = from; i < from + count; i++) {
        const t0 = performance.now();
        if ((await read(starts[i]!)) !== PAGE) throw new Error("a short page of small events");
        out.push(performance.now() - t0);
      }
      return out;
    };
    // Warm both paths, then alternate rounds so a drift of the shared machine falls on both.
    await timed(byPage, 0, 100);
    await timed(byTwoReads, 0, 100);
    const latency = { page: [] as number[], two: [] as number[] };
    const redisUsec = { page: 0, two: 0 };
    const perRound = Math.floor(READS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      const sides: ["page" | "two", (after: number) => Promise<number>][] = [
        ["page", byPage],
        ["two", byTwoReads],
      ];
      if (round % 2 === 1) sides.reverse();
      for (const [side, read] of sides) {
        const before = await redisTime(raw);
        latency[side].push(...(await timed(read, round * perRound, perRound)));
        redisUsec[side] += (await redisTime(raw)) - before;
      }
    }

    const large = await open("large");
    await fill(service, large, LARGE_EVENTS, 1_000_000);
    const logBytes = (await raw.xrange(keys.sessionLog(large), "-", "+", "COUNT", PAGE)).reduce(
      (sum, [, fields]) => sum + Buffer.byteLength(parseEntry(fields).env!),
      0,
    );
    const pages: { events: number; bytes: number; ms: number }[] = [];
    for (let after = 0, more = true; more;) {
      const t0 = performance.now();
      const page = await eventLog.page(large, after, PAGE);
      const ms = performance.now() - t0;
      pages.push({ events: page.events.length, bytes: page.events.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e.envelope)), 0), ms });
      more = page.more;
      after = page.events.at(-1)!.envelope.sequence;
    }

    const s = summary(latency.page);
    const t = summary(latency.two);
    const reads = perRound * ROUNDS;
    console.log(await conditions());
    console.log(`(a) a page of ${PAGE} small events (about 0.4 KB each) from a log of ${EVENTS}, ${reads} pages a side in ${ROUNDS} alternating rounds`);
    console.log(
      `    EventLog.page       p50 ${fixed(s.p50)} ms   p99 ${fixed(s.p99)} ms   Redis ${fixed(redisUsec.page / reads, 6, 0)} µs a page   (three round trips, cut by bytes before reading)`,
    );
    console.log(
      `    XRANGE + HMGET      p50 ${fixed(t.p50)} ms   p99 ${fixed(t.p99)} ms   Redis ${fixed(redisUsec.two / reads, 6, 0)} µs a page   (the read it replaced: two round trips, no bound)`,
    );
    console.log(
      `    ratio               p50 ${fixed(s.p50 / t.p50, 6, 2)}x   p99 ${fixed(s.p99 / t.p99, 6, 2)}x   Redis ${fixed(redisUsec.page / redisUsec.two, 6, 2)}x`,
    );
    const most = Math.max(...pages.map((p) => p.bytes));
    console.log(`(b) ${LARGE_EVENTS} events, half of them about 1 MB (prompts and answers of 1,000,000 characters), pages of at most ${PAGE}`);
    console.log(
      `    EventLog.page       ${pages.length} pages of ${pages.map((p) => p.events).join(", ")} events; the largest ${(most / MB).toFixed(1)} MB (bound ${PAGE_BYTES / MB} MB); ${fixed(summary(pages.map((p) => p.ms)).p50)} ms a page p50`,
    );
    console.log(`    XRANGE COUNT ${PAGE}     one read of ${(logBytes / MB).toFixed(1)} MB`);
  } finally {
    raw.disconnect();
    await service.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
