/**
 * Callable agents: a version lists agents of its organization it may delegate to; the model calls one
 * through the `delegation` toolset, which opens a child thread (a session of its own) and waits for its
 * answer. Thread events on the parent, the child's own events, usage, a pause inside the child, interrupts,
 * bounds, and the checks made when a version is published.
 */
import { expect } from "chai";
import { SCHEMAS } from "../schemas/index.js";
import { newAjv } from "../src/schema-validation.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, history, sendText, settle, until } from "./support/sessions.js";
import { allow, ask, sessionSteps, toolset } from "./tools-cases.js";

describe("delegation: callable agents and child threads", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}` });
    api = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  const { post, paused, approve } = sessionSteps(() => api);
  const subject = () => `subject-${Date.now()}-${Math.random()}`;

  async function agent(extra: Record<string, unknown> = {}): Promise<string> {
    const res = await api.post("/v1/agents", agentBody(extra));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  }

  /** A caller whose delegation tools run without asking (other tools still ask). */
  async function caller(callees: string[], extra: Record<string, unknown> = {}) {
    const id = await agent({
      callableAgents: callees.map((agentId) => ({ agentId, description: `The agent ${agentId}` })),
      tools: [toolset(ask, [{ name: "delegation", permissionPolicy: allow }])],
      ...extra,
    });
    const session = await api.post("/v1/sessions", { agentId: id, subjectId: subject() });
    expect(session.status, JSON.stringify(session.body)).to.equal(201);
    return { agentId: id, sessionId: session.body.id as string, subjectId: session.body.subjectId as string };
  }

  const delegate = (callee: string, message: string) => `/tool delegate__${callee} ${JSON.stringify({ message })}`;

  it("a delegation opens a child thread; the parent gets the thread events, the answer, and the child's usage", async () => {
    const callee = await agent({ name: "helper" });
    const { sessionId, subjectId } = await caller([callee]);
    await sendText(api, sessionId, delegate(callee, "count the stars"));
    const events = await settle(api, sessionId, 1);

    const use = events.find((e) => e.type === "agent.tool_use");
    const sent = events.find((e) => e.type === "agent.thread_message_sent");
    const received = events.find((e) => e.type === "agent.thread_message_received");
    const result = events.find((e) => e.type === "agent.tool_result");
    expect(use.payload.tool).to.equal(`delegate__${callee}`);
    expect(sent.payload).to.deep.include({ tool_use_id: use.id, content: [{ type: "text", text: "count the stars" }] });
    expect(received.payload).to.deep.include({
      thread_id: sent.payload.thread_id,
      tool_use_id: use.id,
      content: [{ type: "text", text: "echo: count the stars" }],
    });
    expect(result.payload).to.deep.include({ tool_use_id: use.id, is_error: false, content: [{ type: "text", text: "echo: count the stars" }] });
    expect(agentTexts(events)).to.deep.equal([`tool delegate__${callee} result: echo: count the stars`]);
    const validate = newAjv(false, SCHEMAS).getSchema("event")!;
    for (const e of events) expect(validate(e), JSON.stringify(validate.errors)).to.equal(true);

    // The child is a session of its own: linked to its parent, the same subject, the callee's latest version.
    const threadId = sent.payload.thread_id as string;
    const child = await api.get(`/v1/sessions/${threadId}`);
    expect(child.status).to.equal(200);
    expect(child.body).to.deep.include({ agentId: callee, agentVersion: 1, subjectId, status: "idle" });
    expect(child.body.parent).to.deep.equal({ sessionId, toolUseId: use.id, depth: 1 });
    const childEvents = await history(api, threadId);
    expect(childEvents.map((e) => e.type).filter((t) => t !== "session.title_updated")).to.deep.equal([
      "user.message",
      "session.status_running",
      "agent.message",
      "session.status_idle",
    ]);

    // The parent's usage includes the child's turn: its model calls are counted with the parent's own.
    const childIdle = childEvents.find((e) => e.type === "session.status_idle");
    const parentIdle = events.find((e) => e.type === "session.status_idle");
    expect(parentIdle.usage.calls).to.equal(2 + childIdle.usage.calls);
    expect(parentIdle.usage.input).to.be.greaterThan(childIdle.usage.input);
  });

  it("a pause inside the child stops the parent with requires_action naming the child's event; answering it resumes both", async () => {
    const callee = await agent({ tools: [toolset(ask)] });
    const { sessionId } = await caller([callee]);
    await sendText(api, sessionId, delegate(callee, "/tool todo {}"));
    const { events, blocking } = await paused(sessionId);
    const threadId = events.find((e) => e.type === "agent.thread_message_sent").payload.thread_id;
    const inChild = await paused(threadId);
    const approval = inChild.events.find((e) => e.type === "agent.approval_request");
    expect(blocking).to.deep.equal([approval.id]);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("waiting_on_human");

    expect((await approve(threadId, approval.id)).status).to.equal(202);
    const done = await settle(api, sessionId, 2);
    const types = done.map((e) => e.type);
    expect(types.filter((t) => t === "session.status_running")).to.have.length(2);
    expect(done.find((e) => e.type === "agent.thread_message_received").payload.content[0].text).to.match(/^tool todo result: /);
    expect(done.findLast((e) => e.type === "session.status_idle").payload.stop_reason).to.deep.equal({ type: "end_turn" });
  });

  it("interrupting the parent interrupts its open threads", async () => {
    const callee = await agent();
    const { sessionId } = await caller([callee]);
    await sendText(api, sessionId, delegate(callee, "/slow 60000 never"));
    const sent = await until(
      () => history(api, sessionId),
      (h) => h.some((e) => e.type === "agent.thread_message_sent"),
      15_000,
      "the delegation",
    );
    const threadId = sent.find((e) => e.type === "agent.thread_message_sent").payload.thread_id;
    await until(
      () => api.get(`/v1/sessions/${threadId}`),
      (r) => r.body.status === "running",
      15_000,
      "the thread to run",
    );
    expect((await post(sessionId, { type: "user.interrupt" })).status).to.equal(202);
    await settle(api, sessionId, 1);
    await settle(api, threadId, 1);
    const childEvents = await history(api, threadId);
    expect(childEvents.some((e) => e.type === "user.interrupt")).to.equal(true);
  });

  it("depth and fan-out are bounded, each with a clear tool error", async () => {
    // A self-delegating agent nests until the depth bound refuses.
    const id = await agent();
    const patched = await api.patch(`/v1/agents/${id}`, {
      callableAgents: [{ agentId: id, description: "myself" }],
      tools: [toolset(allow)],
    });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    const session = await api.post("/v1/sessions", { agentId: id, subjectId: subject() });
    const nested = (depth: number): string => (depth === 0 ? "done" : delegate(id, nested(depth - 1)));
    await sendText(api, session.body.id, nested(4));
    const events = await settle(api, session.body.id, 1, 30_000);
    const texts = events.filter((e) => e.type === "agent.thread_message_received").map((e) => e.payload.content[0].text);
    expect(texts[0]).to.contain("delegation refused: threads nest at most 3 deep, and this one is at depth 3");

    const callee = await agent();
    const fan = await caller([callee]);
    await sendText(api, fan.sessionId, Array.from({ length: 5 }, (_, i) => delegate(callee, `/slow 200 part ${i}`)).join("\n"));
    const fanned = await settle(api, fan.sessionId, 1, 30_000);
    const results = fanned.filter((e) => e.type === "agent.tool_result");
    expect(results.filter((r) => r.payload.is_error)).to.have.length(1);
    expect(results.find((r) => r.payload.is_error).payload.content[0].text).to.contain("at most 4 threads open at once");
  });

  it("publishing refuses a callable agent that is unknown, of another organization, or archived; PATCH upserts the list", async () => {
    const other = client(server.url, await server.newKey());
    const foreign = (await other.post("/v1/agents", agentBody())).body.id;
    const archived = await agent();
    await api.post(`/v1/agents/${archived}/archive`, {});
    for (const [agentId, why] of [
      ["agt_missing", "no agent of this organization has this id"],
      [foreign, "no agent of this organization has this id"],
      [archived, "the agent is archived"],
    ]) {
      const res = await api.post("/v1/agents", agentBody({ callableAgents: [{ agentId, description: "x" }] }));
      expect(res.status).to.equal(400);
      expect(JSON.stringify(res.body)).to.contain(`callableAgents[0].agentId: ${why}`);
    }
    const a = await agent();
    const b = await agent();
    const id = await agent({ callableAgents: [{ agentId: a, description: "first" }] });
    const patched = await api.patch(`/v1/agents/${id}`, {
      callableAgents: [
        { agentId: a, description: "first, again" },
        { agentId: b, description: "second" },
      ],
    });
    expect(patched.body.version.callableAgents).to.deep.equal([
      { agentId: a, description: "first, again" },
      { agentId: b, description: "second" },
    ]);
    const custom = await api.post(
      "/v1/agents",
      agentBody({ tools: [{ type: "custom_tool", name: `delegate__${a}`, description: "x", input_schema: { type: "object" } }] }),
    );
    expect(custom.status).to.equal(400);
  });
});
