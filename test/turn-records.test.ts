import { expect } from "chai";
import type { CommandStartedEvent } from "mongodb";
import { SessionRecords } from "../actors/session-records.js";
import type { Usage } from "../src/domain/events.js";
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
    server.services.mongo.client.on("commandStarted", (e: CommandStartedEvent) => commands.push(e));
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server.close());

  const { paused } = sessionSteps(() => api);

  const of = (name: string, collection: string) => commands.filter((c) => c.commandName === name && c.command[name] === collection);
  const usageWrites = () => of("update", "sessions").filter((c) => JSON.stringify(c.command.updates).includes('"tally"'));

  it("a warm turn reads neither the session's facts nor the agent version, and writes its usage once", async () => {
    const { sessionId } = await createSession(api);
    const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream`, key);
    const idles = () => sse.frames.filter((f) => f.event === "session.status_idle").length;
    for (let turn = 1; turn <= 2; turn++) {
      await sendText(api, sessionId, `warm-up ${turn}`);
      await sse.waitFor(() => idles() === turn);
    }
    commands.length = 0;
    await sendText(api, sessionId, "the measured turn");
    await sse.waitFor(() => idles() === 3);
    sse.close();
    // A read of the whole record is the facts' (by id, no projection); the usage tally's names its fields.
    expect(of("find", "sessions").filter((c) => !c.command.projection), "reads of the session record").to.have.length(0);
    expect(of("find", "agent_versions"), "reads of the agent version").to.have.length(0);
    expect(usageWrites(), "usage writes").to.have.length(1);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.usage.calls).to.equal(3);
  });

  it("usage: within one lock tenure a worker adds to the tally it wrote without reading; another tenure or worker reads first", async () => {
    const { sessionId } = await createSession(api);
    const store = server.services.sessionStore;
    const [a, b] = [new SessionRecords(store), new SessionRecords(store)];
    await a.facts(sessionId);
    await b.facts(sessionId);
    const tallyReads = () => of("find", "sessions").filter((c) => c.command.projection).length;
    commands.length = 0;
    await a.addUsage(sessionId, "turn_1", usage(10), "lock_a1");
    await a.addUsage(sessionId, "turn_2", usage(20), "lock_a1"); // same tenure: no read
    expect(tallyReads(), "reads in worker a's first tenure").to.equal(1);
    await b.addUsage(sessionId, "turn_3", usage(30), "lock_b1"); // another worker: reads turn_2's tally
    await a.addUsage(sessionId, "turn_4", usage(40), "lock_a2"); // a's new tenure: reads turn_3's tally
    await a.addUsage(sessionId, "turn_4", usage(40), "lock_a2"); // turn_4 again (a resumed turn): not counted twice
    expect(tallyReads(), "reads in all").to.equal(3);
    expect(usageWrites(), "writes").to.have.length(4);
    const record = await store.byId(sessionId);
    expect(record!.usage).to.include({ input: 100, output: 4, total: 104, calls: 4, latency_ms: 20 });
    expect(record!.usageTurn).to.equal("turn_4");
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
