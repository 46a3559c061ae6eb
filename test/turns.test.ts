import { expect } from "chai";
import { openSse } from "./support/sse.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

describe("turns with the mock model", () => {
  let server: TestServer;
  let api: Client;
  let key: string;
  before(async () => {
    server = await startServer();
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server.close());

  it("echoes plain text: deltas on the live stream, then the durable message, in the States order", async () => {
    const { sessionId } = await createSession(api);
    const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream`, key);
    const sent = await sendText(api, sessionId, "Hello there, agent");
    expect(sent.status).to.equal(202);
    await sse.waitFor((f) => f.some((x) => x.event === "session.title_updated"));
    sse.close();

    const deltas = sse.frames.filter((f) => f.event === "agent.message" && f.data.payload.delta === true);
    expect(deltas.length).to.be.greaterThan(1);
    expect(deltas.map((d) => d.data.payload.content[0].text).join("")).to.equal("echo: Hello there, agent");
    for (const d of deltas) expect(d.data.sequence).to.equal(null);
    const complete = sse.frames.findIndex((f) => f.event === "agent.message" && f.data.payload.delta === false);
    expect(sse.frames.indexOf(deltas[deltas.length - 1]!)).to.be.lessThan(complete);

    const events = await settle(api, sessionId, 1);
    expect(events.map((e) => e.type)).to.deep.equal([
      "user.message",
      "session.status_running",
      "agent.message",
      "session.status_idle",
      "session.title_updated",
    ]);
    expect(events.map((e) => e.sequence)).to.deep.equal([1, 2, 3, 4, 5]);
    const turnId = events[0].turnId;
    expect(turnId).to.be.a("string");
    for (const e of events) expect(e.turnId).to.equal(turnId);
    expect(events[0].status).to.equal("processed");
    expect(events[0].processedAt).to.be.a("string");
    expect(events[2].payload).to.deep.equal({ type: "agent.message", content: [{ type: "text", text: "echo: Hello there, agent" }], delta: false });
    expect(events[3].payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(events[4].payload.title).to.equal("Hello there, agent");
  });

  it("reports usage on the terminal event and aggregates it on the session", async () => {
    const { sessionId } = await createSession(api);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body).to.not.have.property("usage");
    await sendText(api, sessionId, "first");
    await settle(api, sessionId, 1);
    await sendText(api, sessionId, "second message");
    const events = await settle(api, sessionId, 2);
    const terminal = events.filter((e) => e.type === "session.status_idle").map((e) => e.usage);
    for (const u of terminal) {
      expect(u).to.include.keys(
        "model",
        "input",
        "output",
        "cache_read",
        "cache_write",
        "reasoning",
        "total",
        "calls",
        "context_used",
        "context_max",
        "context_percent",
        "cost_status",
        "last_turn_latency_ms",
        "latency_ms",
      );
      expect(u.calls).to.equal(1);
      expect(u.model).to.equal("mock/echo");
      expect(u.total).to.equal(u.input + u.output + u.cache_read + u.cache_write);
    }
    const session = (await api.get(`/v1/sessions/${sessionId}`)).body;
    expect(session.usage.calls).to.equal(2);
    expect(session.usage.input).to.equal(terminal[0].input + terminal[1].input);
    expect(session.usage.output).to.equal(terminal[0].output + terminal[1].output);
    expect(session.usage.latency_ms).to.equal(terminal[0].latency_ms + terminal[1].latency_ms);
    expect(session.usage.last_turn_latency_ms).to.equal(terminal[1].last_turn_latency_ms);
    expect(session.usage.context_used).to.equal(terminal[1].context_used);
  });

  it("/error ends the turn with stop_reason error and the given message", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/error the model is on fire");
    const events = await settle(api, sessionId, 1);
    const idle = events.find((e) => e.type === "session.status_idle");
    expect(idle.payload.stop_reason).to.deep.equal({ type: "error", message: "the model is on fire" });
    expect(agentTexts(events)).to.deep.equal([]);
  });

  it("/think emits agent.thinking before the echo", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/think deep thoughts");
    const events = await settle(api, sessionId, 1);
    const types = events.map((e) => e.type);
    expect(types.indexOf("agent.thinking")).to.be.within(2, types.indexOf("agent.message") - 1);
    const thinking = events.find((e) => e.type === "agent.thinking");
    expect(thinking.payload.delta).to.equal(false);
    expect(thinking.payload.content[0].text).to.include("deep thoughts");
    expect(agentTexts(events)).to.deep.equal(["echo: deep thoughts"]);
    expect(events.find((e) => e.type === "session.status_idle").usage.reasoning).to.be.greaterThan(0);
  });

  it("/slow waits, then echoes; the session is running meanwhile and a second prompt is refused", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 600 patience");
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("running");
    const refused = await sendText(api, sessionId, "too soon");
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal("invalid_state");
    const events = await settle(api, sessionId, 1);
    expect(agentTexts(events)).to.deep.equal(["echo: patience"]);
    expect(events.filter((e) => e.type === "user.message")).to.have.length(1);
  });

  it("a caller's title is never replaced by a generated one", async () => {
    const { sessionId } = await createSession(api, { session: { title: "Mine" } });
    await sendText(api, sessionId, "generate nothing");
    const events = await settle(api, sessionId, 1);
    expect(events.some((e) => e.type === "session.title_updated")).to.equal(false);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.title).to.equal("Mine");
  });

  it("the conversation grows turn by turn (the second turn sees the first reply)", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "one");
    await settle(api, sessionId, 1);
    await sendText(api, sessionId, "two");
    const events = await settle(api, sessionId, 2);
    expect(agentTexts(events)).to.deep.equal(["echo: one", "echo: two"]);
    // Input tokens grow: the second call carries the first exchange.
    const [first, second] = events.filter((e) => e.type === "session.status_idle").map((e) => e.usage.input);
    expect(second).to.be.greaterThan(first);
  });

  it("history is readable while nothing changes after the turn (status processed stays)", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "x");
    await settle(api, sessionId, 1);
    const again = await until(
      () => history(api, sessionId),
      (h) => h.length === 5,
    );
    expect(again[0].status).to.equal("processed");
  });
});
