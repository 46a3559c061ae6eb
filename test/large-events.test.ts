/**
 * Events of megabytes, end to end: history pages are cut by bytes (PAGE_BYTES) and still walk the whole
 * log; the live stream holds a stub of each large event and the log's index names it with its size;
 * SSE delivers such events whole, replayed and live, to a client whose queue bound is smaller than one
 * of them; and the model's transcript holds them.
 */
import { expect } from "chai";
import type { RedisClient } from "../src/redis/client.js";
import { parseEntry } from "../src/sessions/redis/log-entries.js";
import { LARGE_EVENT_BYTES, PAGE_BYTES } from "../src/sessions/redis/large-events.js";
import { decodeCursor, encodeCursor, sessionTag } from "../src/streaming/event-cursor.js";
import { createAgent, createSession, sendOk, waitForStatus } from "./support/api.js";
import { testKeys, testRedis } from "./support/redis.js";
import { until } from "./support/sessions.js";
import { openSse, stalledStream } from "./support/sse.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { allow, lookup, sessionSteps } from "./tools-cases.js";

/** A prompt of about 4 MB: 100 blocks of 20,000 two-byte characters, the most the schema allows. */
const bigPrompt = (mark: string) => ({
  type: "user.message",
  content: Array.from({ length: 100 }, (_, i) => ({ type: "text", text: `${mark}${i} ${"é".repeat(19_990)}` })),
});

describe("large events", () => {
  let server: TestServer;
  let redis: RedisClient;
  let api: Client;
  let key: string;
  let sessionId: string;

  before(async function () {
    this.timeout(120_000);
    // A queue bound far below one event: each must still reach a client that reads.
    server = await startServer({ SSE_MAX_BUFFERED_BYTES: String(64 * 1024), SSE_KEEPALIVE_MS: "1000" });
    redis = testRedis();
    key = await server.newKey();
    api = client(server.url, key);
    const agent = await createAgent(api, { rateLimits: { messagesPerMinute: 1000 } });
    sessionId = (await createSession(api, agent.id)).id;
    for (const mark of ["one", "two", "three"]) {
      await sendOk(api, sessionId, [bigPrompt(mark)]);
      await waitForStatus(api, sessionId, "idle");
    }
  });
  after(async () => {
    redis.disconnect();
    await server.close();
  });

  /** Every page of the history at `limit`, as the API returns them. */
  async function pages(limit: number, of = sessionId): Promise<{ data: any[]; hasMore: boolean; bytes: number }[]> {
    const out = [];
    for (let after = 0; ;) {
      const res = await api.get(`/v1/sessions/${of}/events?after=${after}&limit=${limit}`);
      expect(res.status).to.equal(200);
      out.push({ data: res.body.data, hasMore: res.body.pagination.hasMore, bytes: Buffer.byteLength(JSON.stringify(res.body.data)) });
      if (!res.body.pagination.hasMore) return out;
      expect(res.body.data.length, "a page is never empty while there is more").to.be.greaterThan(0);
      after = res.body.pagination.after;
    }
  }

  it("history pages stop short of PAGE_BYTES, say there is more, and walk the whole log in order", async () => {
    const walked = await pages(100);
    const all = walked.flatMap((p) => p.data);
    expect(all.map((e) => e.sequence)).to.deep.equal(all.map((_, i) => i + 1));
    expect(all.filter((e) => e.type === "user.message")).to.have.length(3);
    expect(walked.length, "the log did not fit one page").to.be.greaterThan(1);
    expect(
      walked.some((p) => p.hasMore && p.data.length < 100),
      "a page cut by bytes",
    ).to.equal(true);
    for (const p of walked) if (p.data.length > 1) expect(p.bytes).to.be.at.most(PAGE_BYTES);
    // The prompts come whole, as sent.
    for (const [i, mark] of ["one", "two", "three"].entries()) {
      const prompt = all.filter((e) => e.type === "user.message")[i];
      expect(prompt.payload.content).to.deep.equal(bigPrompt(mark).content);
      expect(prompt.status).to.equal("processed");
    }
  });

  it("the model saw each prompt whole", async () => {
    const replies = (await pages(100)).flatMap((p) => p.data).filter((e) => e.type === "agent.message");
    expect(replies).to.have.length(3);
    for (const [i, mark] of ["one", "two", "three"].entries()) {
      const text = replies[i].payload.content.map((b: { text: string }) => b.text).join("");
      expect(text.startsWith(`echo: ${mark}0 é`)).to.equal(true);
      expect(text).to.include(`${mark}99 ${"é".repeat(19_990)}`);
    }
  });

  it("the live stream holds a stub of each large event, and the log's index names it with its size", async () => {
    const keys = testKeys();
    const log = await redis.xrange(keys.sessionLog(sessionId), "-", "+");
    const large = log.map(([, fields]) => parseEntry(fields)).filter((f) => Buffer.byteLength(f.env!) >= LARGE_EVENT_BYTES);
    expect(large.map((f) => f.type)).to.include.members(["user.message", "agent.message"]);
    expect(await redis.zrange(keys.sessionLarge(sessionId), 0, -1)).to.deep.equal(large.map((f) => `${f.seq}:${Buffer.byteLength(f.env!)}`));
    const live = new Map((await redis.xrange(keys.sessionLive(sessionId), "-", "+")).map(([id, fields]) => [id, parseEntry(fields)]));
    for (const f of large) expect(live.get(f.live!)).to.deep.equal({ type: f.type, seq: f.seq, bytes: String(Buffer.byteLength(f.env!)) });
    const small = log.map(([, fields]) => parseEntry(fields)).filter((f) => Buffer.byteLength(f.env!) < LARGE_EVENT_BYTES);
    for (const f of small) expect(live.get(f.live!)?.env).to.equal(f.env);
  });

  /**
   * Durable frames from the start up to `last`, over as many connections as it takes: a client more than
   * its bound behind on live frames is disconnected by design, and resumes with Last-Event-ID.
   */
  async function streamUpTo(last: number, started?: Promise<void>): Promise<any[]> {
    const frames: { id: string | undefined; data: any }[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const resume: Record<string, string> = frames.length > 0 ? { "last-event-id": frames.at(-1)!.id! } : {};
      const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream${frames.length > 0 ? "" : "?after=0"}`, key, resume);
      // A stream that closes first leaves this wait to time out unheard.
      const reached = sse
        .waitFor((f) => f.some((x) => x.data.sequence === last), 30_000)
        .then(
          () => true,
          () => false,
        );
      if (attempt === 0) await started;
      const done = await Promise.race([reached, sse.closed.then(() => false)]);
      sse.close();
      frames.push(...sse.frames);
      if (done) return frames.filter((f) => f.data.sequence !== null).map((f) => f.data);
    }
    throw new Error(`no stream reached sequence ${last}`);
  }

  it("SSE replays large events whole, and delivers a new one, to a client whose queue bound is below one event", async function () {
    this.timeout(60_000);
    const before = (await pages(100)).flatMap((p) => p.data);
    expect(await streamUpTo(before.length)).to.deep.equal(before);
    // Sent while a stream is open: its frame reaches the feed as a stub, filled from the log.
    const sent = (async () => {
      await sendOk(api, sessionId, [bigPrompt("four")]);
      await waitForStatus(api, sessionId, "idle");
    })();
    // The turn's user.message, status_running, agent.message and status_idle.
    const streamed = await streamUpTo(before.length + 4, sent);
    const after = (await pages(100)).flatMap((p) => p.data);
    expect(streamed.map((e) => e.sequence)).to.deep.equal(after.map((e) => e.sequence));
    expect(streamed.filter((e) => e.type === "user.message").at(-1).payload.content).to.deep.equal(bigPrompt("four").content);
    for (const [i, e] of streamed.entries()) expect(e.payload, e.type).to.deep.equal(after[i].payload);
  });

  it("a large event that nothing follows reaches an open stream at once (its stub is filled from the log)", async () => {
    const last = (await pages(100)).flatMap((p) => p.data).length;
    const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream?after=${last}`, key);
    // A small steer first, so the stream has caught up and follows the live stream when the large one comes.
    const [small] = await sendOk(api, sessionId, [{ type: "user.steer", message: "small" }]);
    await sse.waitFor((f) => f.some((x) => x.data.id === small.id));
    await until(
      async () => server.core.services.streams.inStep(sessionId),
      (n) => n === 1,
    );
    // 20,000 two-byte characters: over LARGE_EVENT_BYTES, and a steer starts no turn after it.
    const [large] = await sendOk(api, sessionId, [{ type: "user.steer", message: "é".repeat(20_000) }]);
    await sse.waitFor((f) => f.some((x) => x.data.id === large.id));
    sse.close();
    expect(sse.frames.map((f) => f.data)).to.deep.equal([small, large]);
  });

  it("a large session.tool_updated is patched in the live stream, and reaches open and resuming streams whole", async function () {
    this.timeout(60_000);
    const { post, paused } = sessionSteps(() => api);
    const agent = await createAgent(api, { tools: [lookup({ permissionPolicy: allow })] });
    const toolSession = (await createSession(api, agent.id)).id;
    await sendOk(api, toolSession, [{ type: "user.message", content: [{ type: "text", text: "/tool lookup {}" }] }]);
    const use = (await paused(toolSession)).events.find((e: any) => e.type === "agent.custom_tool_use");
    const running = await post(toolSession, {
      type: "user.custom_tool_result",
      tool_use_id: use.id,
      content: [{ type: "text", text: "job started" }],
      status: "running",
    });
    const runningEvent = running.body.data[0];
    await waitForStatus(api, toolSession, "idle");

    const sse = await openSse(`${server.url}/v1/sessions/${toolSession}/events/stream?after=${runningEvent.sequence}`, key);
    await until(
      async () => server.core.services.streams.inStep(toolSession),
      (n) => n === 1,
    );
    // A frame before it, whose cursor a client resumes from below.
    const [steer] = await sendOk(api, toolSession, [{ type: "user.steer", message: "before" }]);
    await sse.waitFor((f) => f.some((x) => x.data.id === steer.id));
    // About 4 MB, far over the SSE bound of 64 KiB and LARGE_EVENT_BYTES.
    const content = bigPrompt("result").content;
    const final = await post(toolSession, { type: "user.custom_tool_result", tool_use_id: use.id, content, status: "completed" });
    expect(final.status).to.equal(202);
    await sse.waitFor((f) => f.some((x) => x.event === "session.tool_updated"));
    const at = sse.frames.findIndex((f) => f.event === "session.tool_updated");
    const updated = sse.frames[at]!.data;
    expect(updated.sequence).to.equal(null);
    expect(updated.payload).to.deep.include({ tool_use_id: use.id, event_id: runningEvent.id });
    expect(updated.payload.payload).to.deep.equal({ type: "user.custom_tool_result", tool_use_id: use.id, content, status: "completed" });

    // The live stream holds it without the payload, naming the event whose overlay field has it.
    const keys = testKeys();
    const entry = (await redis.xrange(keys.sessionLive(toolSession), "-", "+"))
      .map(([, fields]) => parseEntry(fields))
      .find((f) => f.type === "session.tool_updated")!;
    expect(entry.patch).to.equal(runningEvent.id);
    expect(Buffer.byteLength(entry.env!)).to.be.below(LARGE_EVENT_BYTES);
    expect(JSON.parse(entry.env!).payload.payload).to.equal(null);

    // A client joining the running feed reads back the live-only frames after its live position (here
    // one just before the frame, with every durable event delivered), and gets this one whole.
    await waitForStatus(api, toolSession, "idle");
    expect(sse.frames[at - 1]!.data.id).to.equal(steer.id);
    const lastSequence = (await pages(100, toolSession)).flatMap((p) => p.data).length;
    const cursor = encodeCursor(sessionTag(toolSession), lastSequence, decodeCursor(toolSession, sse.frames[at - 1]!.id!).liveId!);
    const resumed = await openSse(`${server.url}/v1/sessions/${toolSession}/events/stream`, key, { "last-event-id": cursor });
    await resumed.waitFor((f) => f.some((x) => x.event === "session.tool_updated"));
    resumed.close();
    sse.close();
    expect(resumed.frames.find((f) => f.event === "session.tool_updated")!.data).to.deep.equal(updated);
  });

  it("a client that stops reading while its replay waits for it is disconnected, not waited for", async () => {
    const streams = server.core.services.streams;
    await until(
      async () => streams.subscribers(sessionId),
      (n) => n === 0,
    );
    const stalled = stalledStream(`${server.url}/v1/sessions/${sessionId}/events/stream?after=0`, key);
    stalled.on("error", () => undefined);
    await until(
      async () => streams.subscribers(sessionId),
      (n) => n === 1,
    );
    // Its queue does not shrink for a keep-alive interval (1 s here): it is let go.
    await until(
      async () => streams.subscribers(sessionId),
      (n) => n === 0,
    );
    const closed = new Promise<void>((resolve) => stalled.on("close", () => resolve()));
    stalled.resume();
    await closed;
  });
});
