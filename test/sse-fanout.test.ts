import { expect } from "chai";
import { get, type IncomingMessage } from "node:http";
import { openSse, stalledStream, type SseFrame } from "./support/sse.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, sendText, settle, until } from "./support/sessions.js";

const durable = (frames: SseFrame[]) => frames.filter((f) => f.data.sequence !== null).map((f) => f.data.sequence as number);

/** An SSE stream's body as received, byte for byte (Node's client removes the chunked framing). */
function rawStream(url: string, key: string) {
  let text = "";
  const opened = new Promise<IncomingMessage>((resolve, reject) => {
    get(url, { headers: { "x-api-key": key, accept: "text/event-stream" } }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      resolve(res);
    }).on("error", reject);
  });
  return {
    opened,
    /** Complete frames so far, keep-alive comments left out. */
    frames: () =>
      text
        .split("\n\n")
        .slice(0, -1)
        .filter((f) => !f.startsWith(":")),
    close: async () => (await opened).destroy(),
  };
}

describe("SSE fan-out", () => {
  let server: TestServer;
  let api: Client;
  let key: string;
  const stream = (sessionId: string, query = "") => `${server.url}/v1/sessions/${sessionId}/events/stream${query}`;

  before(async () => {
    // A bound well above a burst a reading client takes at once, so only the stalled client hits it.
    server = await startServer({ SSE_MAX_BUFFERED_BYTES: String(1024 * 1024) });
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server.close());

  it("clients in step receive byte-identical frames, a replaying client too once it has caught up", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "first");
    await settle(api, sessionId, 1);
    const a = rawStream(stream(sessionId), key);
    const b = rawStream(stream(sessionId), key);
    const replaying = rawStream(stream(sessionId, "?after=2"), key);
    await Promise.all([a.opened, b.opened, replaying.opened]);
    // In step: a client still catching up when the next events come encodes them with its own cursor.
    await until(
      async () => server.core.services.streams.inStep(sessionId),
      (n) => n === 3,
    );

    await sendText(api, sessionId, "second");
    const isIdle = (frames: string[]) => frames.some((f) => f.startsWith("event: session.status_idle\n") && f.includes('"sequence":9'));
    await until(
      async () => [a, b, replaying].every((c) => isIdle(c.frames())),
      (done) => done,
      10_000,
      "every client to see the turn end",
    );
    const live = a.frames();
    expect(live.length).to.be.greaterThan(4);
    expect(b.frames()).to.deep.equal(live);
    // The replayed frames (sequences 3 to 5), then the same bytes as the others.
    expect(replaying.frames().slice(-live.length)).to.deep.equal(live);
    expect(
      replaying
        .frames()
        .slice(0, -live.length)
        .map((f) => /"sequence":(\d+)/.exec(f)?.[1]),
    ).to.deep.equal(["3", "4", "5"]);

    await Promise.all([a.close(), b.close(), replaying.close()]);
    await until(
      async () => server.core.services.streams.subscribers(sessionId),
      (n) => n === 0,
      5_000,
      "the feed to be released",
    );
  });

  it("clients that join while frames flow get every durable event once, in order", async () => {
    const { sessionId } = await createSession(api);
    const joined = [await openSse(stream(sessionId, "?after=0"), key)];
    for (let turn = 1; turn <= 3; turn++) {
      await sendText(api, sessionId, `turn ${turn}`);
      // Join at various points of the turn: before its first frame, among its deltas, after its end.
      joined.push(await openSse(stream(sessionId, "?after=0"), key));
      await joined[0]!.waitFor((f) => f.filter((x) => x.event === "session.status_running").length === turn);
      joined.push(await openSse(stream(sessionId, "?after=0"), key));
      await settle(api, sessionId, turn);
      joined.push(await openSse(stream(sessionId, "?after=0"), key));
    }
    // Five events in the first turn (its title included), four in each of the others.
    await Promise.all(joined.map((c) => c.waitFor((f) => durable(f).includes(13))));
    const last = joined[0]!.frames.at(-1)!;
    for (const c of joined) {
      c.close();
      expect(durable(c.frames)).to.deep.equal(Array.from({ length: 13 }, (_, i) => i + 1));
      // Whatever their way in, all end at the same cursor.
      expect(c.frames.at(-1)!.id).to.equal(last.id);
    }
  });

  it("a client that stops reading is disconnected once its backlog passes the bound, and the others go on", async () => {
    const { sessionId } = await createSession(api, { agent: { rateLimits: { conversationsPerMinute: 5, messagesPerMinute: 1000 } } });
    const reading = await openSse(stream(sessionId), key);
    const stalled = stalledStream(stream(sessionId), key);
    await until(
      async () => server.core.services.streams.subscribers(sessionId),
      (n) => n === 2,
    );

    // About 200 KB a request, until the stalled client is let go (the kernel's socket buffers take
    // some megabytes first).
    const steers = { events: Array.from({ length: 10 }, (_, i) => ({ type: "user.steer", message: `${i} ${"x".repeat(19_990)}` })) };
    let sent = 0;
    while (server.core.services.streams.subscribers(sessionId) === 2 && sent < 1_000) {
      const res = await api.post(`/v1/sessions/${sessionId}/events`, steers);
      expect(res.status).to.equal(202);
      sent += steers.events.length;
    }
    // Large steers reach the feed as stubs, filled from the log, so its writes may trail the sends.
    await until(
      async () => server.core.services.streams.subscribers(sessionId),
      (n) => n === 1,
      15_000,
      "the stalled client to be disconnected",
    );

    await reading.waitFor((f) => f.filter((x) => x.event === "user.steer").length === sent);
    reading.close();
    expect(durable(reading.frames)).to.deep.equal(Array.from({ length: sent }, (_, i) => i + 1));

    // What the stalled client was sent before it was let go is still readable; then its stream ends.
    let received = "";
    const closed = new Promise<void>((resolve) => stalled.on("close", () => resolve()));
    stalled.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    stalled.on("error", () => undefined);
    await closed;
    expect(received).to.match(/^HTTP\/1\.1 200 OK/);
    expect(received.split("event: user.steer\n").length - 1).to.be.lessThan(sent);
  });
});
