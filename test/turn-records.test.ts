import { expect } from "chai";
import type { CommandStartedEvent } from "mongodb";
import type { Usage } from "../src/sessions/domain/events.js";
import { allEvents, completeTurn, newSession } from "./support/api.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { openSse } from "./support/sse.js";
import { createSession, sendText, settle } from "./support/sessions.js";
import { ask, sessionSteps, toolset } from "./tools-cases.js";

const usage = (input: number): Usage => ({
  model: "mock/echo",
  input,
  output: 1,
  cache_read: 0,
  cache_write: 0,
  reasoning: 0,
  total: input + 1,
  calls: 1,
  context_used: input + 1,
  context_max: 200_000,
  context_percent: 0,
  cost_usd: 0,
  cost_status: "included",
  last_turn_latency_ms: 5,
  latency_ms: 5,
});

/** The worker keeps what never changes about a session in memory, and hints about what turns write; the record decides. */
describe("turns and session records", () => {
  let server: TestServer;
  let api: Client;
  let key: string;
  const commands: CommandStartedEvent[] = [];
  before(async () => {
    server = await startServer({}, { monitorCommands: true });
    server.core.connections.mongo.client.on("commandStarted", (e: CommandStartedEvent) => commands.push(e));
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server.close());

  const { paused } = sessionSteps(() => api);

  const of = (name: string, collection: string) => commands.filter((c) => c.commandName === name && c.command[name] === collection);
  const projections = () => of("update", "sessions").filter((c) => JSON.stringify(c.command.updates).includes('"projected"'));

  it("a warm turn reads nothing from MongoDB: its usage is added to the total in the state, and the record follows", async () => {
    const { sessionId } = await createSession(api);
    const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream`, key);
    const idles = () => sse.frames.filter((f) => f.event === "session.status_idle").length;
    for (let turn = 1; turn <= 2; turn++) {
      await sendText(api, sessionId, `warm-up ${turn}`);
      await sse.waitFor(() => idles() === turn);
    }
    await server.core.inner.projector.drain(); // the warm-up turns' record writes land before the count starts
    commands.length = 0;
    await sendText(api, sessionId, "the measured turn");
    await sse.waitFor(() => idles() === 3);
    sse.close();
    expect(of("find", "sessions"), "reads of the session record").to.have.length(0);
    expect(of("find", "agent_versions"), "reads of the agent version").to.have.length(0);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.usage.calls).to.equal(3);
    await server.core.inner.projector.drain();
    expect(projections().length, "record writes: the projections of running and idle").to.be.within(1, 2);
    expect((await server.core.stores.sessions.byId(sessionId))!.usage!.calls, "the record's total").to.equal(3);
  });

  it("a session whose state keeps no total yet (from before it did) adds its record's, read once, then keeps it", async () => {
    const { sessionId } = await createSession(api);
    const state = server.core.connections.keys.sessionState(sessionId);
    await server.core.connections.redis.hdel(state, "usage");
    const sessions = server.core.connections.mongo.db.collection("sessions");
    await sessions.updateOne({ _id: sessionId as never }, { $set: { tally: { seq: 5, turn: "turn_old", usage: usage(100) } }, $unset: { usageProjected: "" } });
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.usage, "the record's total, until a turn ends").to.include({ input: 100, calls: 1 });

    const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream`, key);
    for (let turn = 1; turn <= 2; turn++) {
      commands.length = 0;
      await sendText(api, sessionId, `turn ${turn}`);
      await sse.waitFor(() => sse.frames.filter((f) => f.event === "session.status_idle").length === turn);
      const recordReads = of("find", "sessions").filter((c) => c.command.filter?._id === sessionId).length;
      // The total only: the worker's facts came with the session's preparation hint.
      expect(recordReads, `reads of the record in turn ${turn}`).to.equal(turn === 1 ? 1 : 0);
    }
    sse.close();
    const shown = (await api.get(`/v1/sessions/${sessionId}`)).body.usage;
    expect(shown).to.include({ calls: 3 });
    expect(shown.input).to.be.greaterThan(100);
    const listed = (await api.get(`/v1/sessions?limit=100`)).body.data.find((s: { id: string }) => s.id === sessionId);
    expect(listed.usage).to.deep.equal(shown);
    await server.core.inner.projector.drain();
    expect((await server.core.stores.sessions.byId(sessionId))!.usage).to.deep.equal(shown);
  });

  it("a caller's title given after a first turn that made none is kept: the next turn generates none", async () => {
    const { api: tenant, session } = await newSession(server);
    await completeTurn(tenant, session.id, "/error the model failed");
    expect((await tenant.get(`/v1/sessions/${session.id}`)).body.title).to.equal(null);
    expect((await tenant.post(`/v1/sessions/${session.id}`, { title: "Mine" })).status).to.equal(200);
    const done = await completeTurn(tenant, session.id, "hello there");
    expect(done.title).to.equal("Mine");
    expect((await allEvents(tenant, session.id)).map((e) => e.type)).to.not.include("session.title_updated");
  });

  it("yoloMode turned off mid-session: the next call asks again (read at each decision, never remembered)", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [toolset(ask)] }, session: { yoloMode: true } });
    await sendText(api, sessionId, "/tool todo {}");
    const first = await settle(api, sessionId, 1);
    expect(first.some((e) => e.type === "agent.approval_request")).to.equal(false);
    expect((await api.post(`/v1/sessions/${sessionId}`, { yoloMode: false })).body.yoloMode).to.equal(false);
    await sendText(api, sessionId, "/tool todo {}");
    const { events } = await paused(sessionId);
    expect(events.filter((e) => e.type === "agent.approval_request")).to.have.length(1);
  });
});
