import { createAgentSessionsClient, type AgentSessionsClient, type ApiError, type StreamPosition, type StreamState } from "@agent-sessions/client";
import { expect } from "chai";
import { read } from "./support/client-streams.js";
import type { RedisClient } from "../src/redis/client.js";
import { testKeys, testRedis } from "./support/redis.js";
import { startServer, client, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";
import { allow, toolset } from "./tools-cases.js";

const QUICK = { initialDelayMs: 50, maxDelayMs: 500 };

/** The client's event stream resumed from a saved position: a reader that stopped, and came back after the live stream was trimmed. */
describe("the TypeScript client's event stream, resumed", function () {
  this.timeout(90_000);
  let server: TestServer;
  let api: Client;
  let streams: AgentSessionsClient;
  let redis: RedisClient;
  const stopping = new AbortController();

  before(async () => {
    server = await startServer();
    const key = await server.newKey();
    api = client(server.url, key);
    streams = createAgentSessionsClient({ baseUrl: server.url, apiKey: key });
    redis = testRedis();
  });
  after(async () => {
    stopping.abort();
    await redis.quit();
    await server.close();
  });

  it("resumes from a position a stopped reader saved, after the live stream was trimmed past it: the missed events come from history, once each, in order, then live", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [toolset(allow)] }, session: { title: "kept" } });
    await sendText(api, sessionId, "first");
    const stopped = streams.events(sessionId);
    const before: number[] = [];
    for await (const event of stopped) {
      if (event.sequence !== null) before.push(event.sequence);
      if (event.type === "session.status_idle") break;
    }
    expect(before).to.deep.equal(before.map((_, i) => i + 1));
    // What a reader keeps across its own restart.
    const saved = JSON.stringify(stopped.position);

    // While nobody reads: turns of 100 tool calls (several live frames each) until the live stream no longer holds what followed the position.
    const live = testKeys().sessionLive(sessionId);
    const oldestDurableLive = async () => {
      for (const [, fields] of await redis.xrange(live, "-", "+", "COUNT", 200)) {
        for (let i = 0; i < fields.length; i += 2) if (fields[i] === "seq") return Number(fields[i + 1]);
      }
      return 0;
    };
    const calls = Array.from({ length: 100 }, () => "/tool skills_list {}").join("\n");
    for (let turn = 2; (await oldestDurableLive()) <= before.length + 1; turn++) {
      expect(turn, "turns before the live stream was trimmed").to.be.below(10);
      await sendText(api, sessionId, calls);
      await settle(api, sessionId, turn, 30_000);
    }

    const position = JSON.parse(saved) as StreamPosition;
    expect(position.sequence).to.equal(before.length);
    const resumed = read(streams.events(sessionId, { from: position, reconnect: QUICK, signal: stopping.signal }));
    const missed = (await history(api, sessionId)).slice(before.length);
    const got = await until(
      async () => resumed.durable(),
      (d) => d.length >= missed.length,
      30_000,
      "the missed events",
    );
    expect(got.map((e) => e.id)).to.deep.equal(missed.map((e) => e.id));
    // Then it follows live.
    const turns = missed.filter((e) => e.type === "session.status_idle").length + 1;
    await sendText(api, sessionId, "and live again");
    const all = await settle(api, sessionId, turns + 1);
    const rest = await until(
      async () => resumed.durable(),
      (d) => d.length >= all.length - before.length,
      15_000,
      "the live turn",
    );
    expect(rest.map((e) => e.sequence)).to.deep.equal(all.slice(before.length).map((e) => e.sequence));
    expect(rest.at(-1)!.type).to.equal("session.status_idle");
  });
  it("resumes by sequence when the server refuses the cursor it was given, telling its states; ends with the ApiError when the session is not there", async () => {
    const { sessionId } = await createSession(api, { session: { title: "kept" } });
    await sendText(api, sessionId, "one");
    const all = await settle(api, sessionId, 1);
    const states: StreamState[] = [];
    const reader = new AbortController();
    const reading = read(
      streams.events(sessionId, {
        from: { lastEventId: "not-a-cursor", sequence: 2 },
        reconnect: QUICK,
        signal: reader.signal,
        onState: (s) => states.push(s),
      }),
    );
    const got = await until(
      async () => reading.durable(),
      (d) => d.length >= all.length - 2,
      15_000,
      "the events after sequence 2",
    );
    expect(got.map((e) => e.id)).to.deep.equal(all.slice(2).map((e) => e.id));
    expect(states.map((s) => s.state)).to.deep.equal(["connecting", "reconnecting", "live"]);
    expect(states[1]).to.include({ attempt: 1 });
    expect((states[1] as { cause: ApiError }).cause.code).to.equal("validation_error");
    reader.abort();
    await reading.done;
    expect(states.at(-1)).to.deep.equal({ state: "closed" });

    const ends: StreamState[] = [];
    const gone = streams.events("ses_01m83d0kk5g22yn4s6m20rp8hr", { signal: stopping.signal, onState: (s) => ends.push(s) });
    const ended = await (async () => {
      for await (const _ of gone) return "an event";
      return "the end";
    })().catch((e: unknown) => e);
    expect(ended).to.include({ status: 404, code: "not_found" });
    expect(ends.map((s) => s.state)).to.deep.equal(["connecting", "closed"]);
    expect(ends[1]).to.have.property("error", ended);
  });
});
