import { expect } from "chai";
import type { RedisClient } from "../src/redis/client.js";
import { masters, testKeys, testRedis } from "./support/redis.js";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { openSse, type SseFrame } from "./support/sse.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";

const durable = (frames: SseFrame[]) => frames.filter((f) => f.data.sequence !== null).map((f) => f.data.sequence as number);

describe("the SSE stream", () => {
  let server: TestServer;
  let api: Client;
  let key: string;
  let redis: RedisClient;
  const stream = (sessionId: string, query = "") => `${server.url}/v1/sessions/${sessionId}/events/stream${query}`;

  before(async () => {
    server = await startServer({ SSE_KEEPALIVE_MS: "200" });
    key = await server.newKey();
    api = client(server.url, key);
    redis = testRedis();
  });
  after(async () => {
    await redis.quit();
    await server.close();
  });

  it("frames carry event: type, an opaque id and the envelope as data", async () => {
    const { sessionId } = await createSession(api);
    const sse = await openSse(stream(sessionId), key);
    expect(sse.status).to.equal(200);
    await sendText(api, sessionId, "hi");
    await sse.waitFor((f) => f.some((x) => x.event === "session.status_idle"));
    sse.close();
    for (const f of sse.frames) {
      expect(f.event).to.equal(f.data.type);
      expect(f.id).to.be.a("string").and.not.equal(String(f.data.sequence));
      expect(f.data.sessionId).to.equal(sessionId);
    }
  });

  it("without a position it sends only new events; with after it replays durable events, then goes live", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "before");
    await settle(api, sessionId, 1);

    const fresh = await openSse(stream(sessionId), key);
    const replaying = await openSse(stream(sessionId, "?after=2"), key);
    await replaying.waitFor((f) => durable(f).includes(5));
    expect(durable(replaying.frames)).to.deep.equal([3, 4, 5]);

    await sendText(api, sessionId, "after");
    await fresh.waitFor((f) => f.some((x) => x.event === "session.status_idle"));
    await replaying.waitFor((f) => durable(f).includes(9));
    fresh.close();
    replaying.close();
    expect(durable(fresh.frames)).to.deep.equal([6, 7, 8, 9]);
    expect(durable(replaying.frames)).to.deep.equal([3, 4, 5, 6, 7, 8, 9]);
    expect(replaying.frames.some((f) => f.data.payload.delta === true)).to.equal(true);
  });

  for (const trimmed of [false, true]) {
    it(`Last-Event-ID resumes with no gap and no duplicate${trimmed ? ", also after the live stream was trimmed" : ""}`, async () => {
      const { sessionId } = await createSession(api);
      const first = await openSse(stream(sessionId, "?after=0"), key);
      await sendText(api, sessionId, "one");
      await first.waitFor((f) => f.some((x) => x.event === "session.status_running"));
      await settle(api, sessionId, 1);
      await first.waitFor((f) => durable(f).includes(5));
      first.close();
      // Resume from the middle: the last frame the client saw was the second durable event.
      const cut = first.frames.find((f) => f.data.sequence === 2)!;

      await sendText(api, sessionId, "two");
      await settle(api, sessionId, 2);
      if (trimmed) await redis.xtrim(testKeys().sessionLive(sessionId), "MAXLEN", 0);

      const resumed = await openSse(stream(sessionId), key, { "last-event-id": cut.id! });
      await resumed.waitFor((f) => durable(f).includes(9));
      await sendText(api, sessionId, "three");
      await resumed.waitFor((f) => durable(f).includes(13));
      resumed.close();
      expect(durable(resumed.frames)).to.deep.equal([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
      const all = await history(api, sessionId);
      expect(resumed.frames.filter((f) => f.data.sequence !== null).map((f) => f.data.id)).to.deep.equal(all.slice(2).map((e) => e.id));
    });
  }

  it("refuses a Last-Event-ID it did not send", async () => {
    const { sessionId } = await createSession(api);
    const res = await api.get(`/v1/sessions/${sessionId}/events/stream`, { headers: { "last-event-id": "not-a-cursor" } });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal("validation_error");
  });

  it("sends keep-alive comments", async () => {
    const { sessionId } = await createSession(api);
    const sse = await openSse(stream(sessionId), key);
    await until(
      async () => sse.comments.length,
      (n) => n >= 2,
      5_000,
      "keep-alive comments",
    );
    sse.close();
    expect(sse.comments[0]).to.equal("keep-alive");
  });

  it("shares one Redis connection (one per shard on a cluster) among all SSE clients and releases every stream on disconnect", async () => {
    // This process's reader connections only: other test runs may share the Redis server.
    const readerConnections = async () => {
      const lists = await Promise.all(masters(redis).map(async (node) => String(await node.client("LIST"))));
      return lists.flatMap((list) => list.split("\n")).filter((l) => l.includes(` name=agent-sessions-sse-${process.pid} `)).length;
    };
    const keys = server.core.connections.keys;
    const sessions = await Promise.all(Array.from({ length: 5 }, () => createSession(api)));
    const warm = await openSse(stream(sessions[0]!.sessionId), key);
    await until(
      async () => server.core.process.streamReader().watchedStreams,
      (n) => n === 1,
    );
    // Earlier tests' readers may have left the connections of other shards open.
    const before = await readerConnections();
    expect(before).to.be.within(1, keys.shardGroups().length);

    const many = await Promise.all(sessions.flatMap((s) => [openSse(stream(s.sessionId), key), openSse(stream(s.sessionId), key)]));
    await until(
      async () => server.core.process.streamReader().watchedStreams,
      (n) => n === 5,
    );

    // Every reader still receives its session's events.
    await Promise.all(sessions.map((s) => sendText(api, s.sessionId, "fan out")));
    await Promise.all(many.map((c) => c.waitFor((f) => f.some((x) => x.event === "session.status_idle"))));
    // Counted once every loop has read (a loop connects at its first read, after the stream is watched):
    // at most one more per shard of these sessions, never one per client, nor per stream.
    const shards = keys.shardGroups().filter((group) => sessions.some((s) => group.includes(keys.shardOf(s.sessionId)))).length;
    const after = await readerConnections();
    expect(after).to.be.at.most(Math.min(keys.shardGroups().length, before + shards - 1));

    warm.close();
    many.forEach((c) => c.close());
    await until(
      async () => server.core.process.streamReader().watchedStreams,
      (n) => n === 0,
      5_000,
      "streams released",
    );
    expect(await readerConnections()).to.equal(after);
  });

  describe("across processes", () => {
    let a: ServiceProcess;
    let b: ServiceProcess;
    before(async () => {
      [a, b] = await Promise.all([startProcess("api"), startProcess("api")]);
    });
    after(async () => {
      await Promise.all([a.stop(), b.stop()]);
    });

    it("a client connected to one process receives events appended through another", async () => {
      const apiA = client(a.url, key);
      const { sessionId } = await createSession(apiA);
      const sse = await openSse(`${b.url}/v1/sessions/${sessionId}/events/stream`, key);
      const sent = await sendText(apiA, sessionId, "across pods");
      expect(sent.status).to.equal(202);
      // The turn runs on the test process's worker; both API processes are stateless.
      await sse.waitFor((f) => f.some((x) => x.event === "session.status_idle"));
      sse.close();
      expect(durable(sse.frames)).to.deep.equal([1, 2, 3, 4, 5]);
      expect(sse.frames.find((f) => f.event === "agent.message" && f.data.payload.delta === false)!.data.payload.content[0].text).to.equal("echo: across pods");
    });
  });
});
