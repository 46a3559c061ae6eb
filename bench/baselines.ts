/**
 * The baselines of `run.ts`, each measured in the same run as the service: Redis alone, a trivial Koa
 * route, and a minimal relay between the two.
 */
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { Redis } from "ioredis";
import Koa from "koa";
import { rate, redisUrl } from "./support.js";

const run = `bench-raw-${Date.now().toString(36)}`;

/** (a)'s raw round trip: XADD → the blocked XREAD that receives it, `samples` times, ms each. */
export async function baselineRoundTrip(samples: number): Promise<number[]> {
  const writer = new Redis(redisUrl);
  const reader = new Redis(redisUrl);
  const key = `${run}:rtt`;
  const out: number[] = [];
  // Read after a known entry, never "$": a read not yet blocked when the XADD lands would miss it with "$".
  let last = (await writer.xadd(key, "*", "n", "seed"))!;
  for (let i = 0; i < samples; i++) {
    const read = reader.xread("BLOCK", 5000, "STREAMS", key, last);
    await new Promise((r) => setImmediate(r));
    const t0 = performance.now();
    await writer.xadd(key, "*", "n", String(i));
    const reply = (await read) as [string, [string, string[]][]][] | null;
    out.push(performance.now() - t0);
    last = reply?.[0]?.[1].at(-1)?.[0] ?? last;
  }
  await writer.del(key);
  writer.disconnect();
  reader.disconnect();
  return out;
}

/** (c)'s baseline: entries appended per second by pipelined XADD, `batch` a pipeline, `concurrency` at once. */
export async function baselineAppendRate(concurrency: number, seconds: number, batch: number): Promise<number> {
  const redis = new Redis(redisUrl);
  const key = `${run}:rate`;
  const requests = await rate(concurrency, seconds, async () => {
    const pipeline = redis.pipeline();
    for (let i = 0; i < batch; i++) pipeline.xadd(key, "*", "env", "x".repeat(200));
    await pipeline.exec();
  });
  await redis.del(key);
  redis.disconnect();
  return requests * batch;
}

/**
 * The least any HTTP service over Redis Streams does between a POST and its SSE frame, on the same Koa,
 * the same Redis client and the same machine: a POST's body is XADDed as it came (no key, no JSON, no
 * checks) and answered 202; a stream's connection of its own waits in XREAD BLOCK and writes each entry
 * as a frame. (a)'s client times it exactly as it times the service.
 */
export async function relayFloor(): Promise<{ postUrl: string; streamUrl: string; close(): Promise<void> }> {
  const key = `${run}:relay`;
  const writer = new Redis(redisUrl);
  const readers = new Set<Redis>();
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      await writer.xadd(key, "*", "body", Buffer.concat(chunks));
      ctx.status = 202;
      ctx.body = { object: "list", data: [] };
      return;
    }
    ctx.respond = false;
    ctx.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    ctx.res.write(": open\n\n");
    const reader = new Redis(redisUrl);
    readers.add(reader);
    ctx.req.once("close", () => {
      readers.delete(reader);
      reader.disconnect();
    });
    // After an entry of its own, never "$": a POST landing before the first read blocks is still sent.
    let last = (await writer.xadd(key, "*", "body", ""))!;
    for (;;) {
      const reply = (await reader.xread("BLOCK", 0, "STREAMS", key, last).catch(() => null)) as [string, [string, string[]][]][] | null;
      if (!reply) return;
      for (const [id, fields] of reply[0]![1]) {
        last = id;
        ctx.res.write(`id: ${id}\ndata: ${fields[1]}\n\n`);
      }
    }
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/sessions/relay/events`;
  return {
    postUrl: base,
    streamUrl: `${base}/stream`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      for (const reader of readers) reader.disconnect();
      await writer.del(key);
      writer.disconnect();
    },
  };
}

/** A Koa app with one route that answers 202 with a small JSON body: the floor of any HTTP send. */
export async function trivialKoa(): Promise<{ url: string; close(): void }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.status = 202;
    ctx.body = { object: "list", data: [] };
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/sessions/x/events`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
