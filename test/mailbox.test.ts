import { expect } from "chai";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

describe("the mailbox: when_idle queue, steer and interrupt", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  it("when_idle on an idle session starts the turn at once", async () => {
    const { sessionId } = await createSession(api);
    const res = await sendText(api, sessionId, "now", "when_idle");
    expect(res.status).to.equal(202);
    expect(res.body.data[0].status).to.equal("received");
    const events = await settle(api, sessionId, 1);
    expect(agentTexts(events)).to.deep.equal(["echo: now"]);
  });

  it("when_idle prompts sent during a turn are queued, then run oldest-first, each as its own turn", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 800 first");
    const q1 = await sendText(api, sessionId, "second", "when_idle");
    const q2 = await sendText(api, sessionId, "third", "when_idle");
    expect(q1.status).to.equal(202);
    expect(q1.body.data[0].status).to.equal("queued");
    expect(q1.body.data[0].turnId).to.equal(null);
    expect(q2.body.data[0].status).to.equal("queued");
    const queued = (await history(api, sessionId)).filter((e) => e.type === "user.message" && e.status === "queued");
    expect(queued).to.have.length(2);

    const events = await settle(api, sessionId, 3, 20_000);
    expect(agentTexts(events)).to.deep.equal(["echo: first", "echo: second", "echo: third"]);
    const running = events.filter((e) => e.type === "session.status_running");
    const idle = events.filter((e) => e.type === "session.status_idle");
    expect(running).to.have.length(3);
    expect(idle).to.have.length(3);
    expect(new Set(running.map((e) => e.turnId)).size).to.equal(3);
    // Each turn: running, then its own message, then idle, before the next turn starts.
    const order = events.filter((e) => ["session.status_running", "session.status_idle"].includes(e.type)).map((e) => e.type);
    expect(order).to.deep.equal([
      "session.status_running",
      "session.status_idle",
      "session.status_running",
      "session.status_idle",
      "session.status_running",
      "session.status_idle",
    ]);
    const prompts = events.filter((e) => e.type === "user.message");
    for (const p of prompts) expect(p.status).to.equal("processed");
    expect(prompts[1].turnId).to.equal(running[1].turnId);
    expect(prompts[2].turnId).to.equal(running[2].turnId);
  });

  it("a steer sent while idle reaches the next model call and is then processed", async () => {
    const { sessionId } = await createSession(api);
    const steer = await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.steer", message: "be brief" }] });
    expect(steer.status).to.equal(202);
    await sendText(api, sessionId, "hello");
    const events = await settle(api, sessionId, 1);
    expect(agentTexts(events)).to.deep.equal(["echo: hello [steer: be brief]"]);
    expect(events.find((e) => e.type === "user.steer").status).to.equal("processed");
  });

  it("a steer sent during a turn reaches its next model call, not the one before", async () => {
    const { sessionId } = await createSession(api);
    // The turn pauses for an approval between its two model calls; the steer arrives in between.
    await sendText(api, sessionId, "/tool todo {}");
    const request = await until(
      () => history(api, sessionId),
      (h) => h.some((e) => e.type === "session.status_idle"),
    );
    await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.steer", message: "use French" }] });
    const approval = request.find((e) => e.type === "agent.approval_request");
    await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.approval_response", approval_id: approval.id, result: "allow" }] });
    const events = await settle(api, sessionId, 2);
    expect(agentTexts(events)).to.deep.equal(["tool todo result: The todo list is empty. [steer: use French]"]);
    expect(events.find((e) => e.type === "user.steer").status).to.equal("processed");
  });

  it("user.interrupt stops a running turn promptly", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 60000 never");
    await until(
      () => api.get(`/v1/sessions/${sessionId}`),
      (r) => r.body.status === "running",
    );
    const sent = await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.interrupt", message: "stop" }] });
    expect(sent.status).to.equal(202);
    expect(sent.body.data[0].status).to.equal("received");
    // Bounded well below the 60 s the turn would take: only an interrupt ends it in time.
    const events = await settle(api, sessionId, 1, 10_000);
    expect(agentTexts(events)).to.deep.equal([]);
    const idle = events.find((e) => e.type === "session.status_idle");
    expect(idle.payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(events.find((e) => e.type === "user.interrupt").status).to.equal("processed");
    const after = await sendText(api, sessionId, "again");
    expect(after.status).to.equal(202);
    expect(agentTexts(await settle(api, sessionId, 2))).to.deep.equal(["echo: again"]);
  });

  it("a steer whose model call was interrupted is kept for the next model call", async () => {
    const { sessionId } = await createSession(api);
    // The steer is waiting when the slow model call starts, so that call carries it, then is interrupted.
    await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.steer", message: "be brief" }] });
    await sendText(api, sessionId, "/slow 60000 never");
    await until(
      () => server.core.redis.eventLog.state(sessionId),
      (s) => (s.turn?.attempts ?? 0) === 1,
    );
    await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.interrupt" }] });
    const first = await settle(api, sessionId, 1, 10_000);
    expect(first.find((e) => e.type === "user.steer").status).to.equal("received");
    await sendText(api, sessionId, "hello");
    expect(agentTexts(await settle(api, sessionId, 2)).at(-1)).to.equal("echo: hello [steer: be brief]");
  });

  it("queued prompts are durable: they survive in the log and state until delivered", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 300 a");
    await sendText(api, sessionId, "b", "when_idle");
    const state = await server.core.redis.eventLog.state(sessionId);
    expect(state.queue).to.have.length(1);
    await settle(api, sessionId, 2);
    expect((await server.core.redis.eventLog.state(sessionId)).queue).to.deep.equal([]);
  });
});
