/** Live-only frames while the model writes: provisional tool calls (`status: streaming`) and reasoning deltas; neither is in history. */
import { expect } from "chai";
import { useAnthropicService } from "./support/anthropic-service.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";
import { openSse, type SseFrame } from "./support/sse.js";
import { allow, lookup, toolset } from "./tools-cases.js";

const streaming = (frames: SseFrame[]) => frames.filter((f) => f.data.status === "streaming");

describe("streaming frames (mock model)", () => {
  let server: TestServer;
  let api: Client;
  let key: string;
  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}` });
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server?.close());

  async function run(agent: Record<string, unknown>, text: string) {
    const { sessionId } = await createSession(api, { agent });
    const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream`, key);
    await sendText(api, sessionId, text);
    await sse.waitFor((f) => f.some((x) => x.event === "session.status_idle"));
    sse.close();
    return { sessionId, frames: sse.frames };
  }

  it("a tool call is announced while the model writes it: its name, then its input, live only, before the durable tool use", async () => {
    const { sessionId, frames } = await run(
      { tools: [toolset(allow), lookup({ permissionPolicy: allow })] },
      '/tool todo {"items":[]}\n/tool lookup {"order":"A-1"}',
    );
    const provisional = streaming(frames);
    expect(provisional.map((f) => [f.event, f.data.payload.tool, f.data.payload.input])).to.deep.equal([
      ["agent.tool_use", "todo", {}],
      ["agent.tool_use", "todo", { items: [] }],
      ["agent.custom_tool_use", "lookup", {}],
      ["agent.custom_tool_use", "lookup", { order: "A-1" }],
    ]);
    for (const f of provisional) {
      expect(f.data.sequence).to.equal(null);
      expect(f.data.payload.status).to.equal("streaming");
    }
    const durable = frames.findIndex((f) => f.event === "agent.tool_use" && f.data.status === "running");
    expect(frames.indexOf(provisional[1]!)).to.be.lessThan(durable);
    // Ids of provisional calls are not the durable ones, and history never holds a streaming event.
    const events = await history(api, sessionId);
    expect(events.filter((e) => e.status === "streaming")).to.deep.equal([]);
    const ids = new Set(events.map((e) => e.id).concat(events.map((e) => e.payload.id)));
    for (const f of provisional) expect(ids.has(f.data.payload.id)).to.equal(false);
  });

  it("a built-in tool use carries a one-line preview where its input has one", async () => {
    const { sessionId } = await run({ tools: [toolset(allow)] }, '/tool write_file {"path":"notes/a.txt","content":"hello"}\n/tool todo {"items":[]}');
    const uses = (await history(api, sessionId)).filter((e) => e.type === "agent.tool_use");
    expect(uses.map((u) => u.payload.preview)).to.deep.equal(["write notes/a.txt (5 bytes)", undefined]);
  });

  it("reasoning streams as agent.thinking deltas; history keeps the whole thought once", async () => {
    const { sessionId, frames } = await run({}, "/think about tides");
    const deltas = frames.filter((f) => f.event === "agent.thinking" && f.data.payload.delta === true);
    expect(deltas.length).to.be.greaterThan(1);
    expect(deltas.map((d) => d.data.payload.content[0].text).join("")).to.equal("thinking about: about tides");
    for (const d of deltas) expect(d.data.sequence).to.equal(null);
    const events = await settle(api, sessionId, 1);
    const thinking = events.filter((e) => e.type === "agent.thinking");
    expect(thinking.map((e) => e.payload)).to.deep.equal([
      { type: "agent.thinking", content: [{ type: "text", text: "thinking about: about tides" }], delta: false },
    ]);
  });
});

describe("streaming frames and extended thinking (anthropic provider)", () => {
  const svc = useAnthropicService();
  const agent = (modelName: string) => ({ agent: { modelName, tools: [lookup({ permissionPolicy: allow })] } });

  it("asks models that take it for extended thinking, streams it, and sends the signed thought back in the tool loop", async () => {
    svc.fake.push(
      { thinking: "I should look the order up.", toolUses: [{ id: "toolu_9", name: "lookup", input: { order: "B-2" } }], chunkSize: 5 },
      { text: "It has shipped." },
    );
    const { sessionId } = await createSession(svc.api, agent("anthropic/claude-sonnet-4-6"));
    const sse = await openSse(`${svc.server.url}/v1/sessions/${sessionId}/events/stream`, svc.key);
    await sendText(svc.api, sessionId, "where is B-2?");
    const paused = await until(
      () => history(svc.api, sessionId),
      (h) => h.some((e) => e.type === "agent.custom_tool_use"),
    );
    const use = paused.find((e) => e.type === "agent.custom_tool_use");
    await until(
      () => svc.api.get(`/v1/sessions/${sessionId}`),
      (r) => r.body.status === "waiting_on_human",
    );
    await svc.api.post(`/v1/sessions/${sessionId}/events`, {
      events: [{ type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "shipped" }] }],
    });
    await settle(svc.api, sessionId, 2);
    sse.close();

    const [first, second] = svc.fake.requests.map((r) => r.body);
    expect(first.thinking).to.deep.equal({ type: "enabled", budget_tokens: 4096 });
    expect(first.max_tokens).to.equal(8192 + 4096);
    expect(second.thinking).to.deep.equal({ type: "enabled", budget_tokens: 4096 });
    expect(second.messages.at(-2).content[0]).to.deep.equal({ type: "thinking", thinking: "I should look the order up.", signature: "sig_fake" });

    const deltas = sse.frames.filter((f) => f.event === "agent.thinking" && f.data.payload.delta === true);
    expect(deltas.map((d) => d.data.payload.content[0].text).join("")).to.equal("I should look the order up.");
    expect(streaming(sse.frames).map((f) => [f.event, f.data.payload.id, f.data.payload.input])).to.deep.equal([
      ["agent.custom_tool_use", "toolu_9", {}],
      ["agent.custom_tool_use", "toolu_9", { order: "B-2" }],
    ]);
  });

  it("does not ask older models for thinking, and not a tool loop whose answer came without a signed thought", async () => {
    svc.fake.push({ text: "plain" });
    const { sessionId } = await createSession(svc.api, agent("anthropic/claude-3-5-haiku-latest"));
    await sendText(svc.api, sessionId, "hi");
    await settle(svc.api, sessionId, 1);
    expect(svc.fake.requests[0]!.body).to.not.have.property("thinking");
    expect(svc.fake.requests[0]!.body.max_tokens).to.equal(8192);

    svc.fake.push({ toolUses: [{ id: "toolu_1", name: "lookup", input: {} }] }, { text: "done" });
    const other = await createSession(svc.api, agent("anthropic/claude-opus-4-1"));
    await sendText(svc.api, other.sessionId, "go");
    const h = await until(
      () => history(svc.api, other.sessionId),
      (x) => x.some((e) => e.type === "agent.custom_tool_use"),
    );
    await until(
      () => svc.api.get(`/v1/sessions/${other.sessionId}`),
      (r) => r.body.status === "waiting_on_human",
    );
    const use = h.find((e) => e.type === "agent.custom_tool_use");
    await svc.api.post(`/v1/sessions/${other.sessionId}/events`, {
      events: [{ type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "ok" }] }],
    });
    await settle(svc.api, other.sessionId, 2);
    const [first, second] = svc.fake.requests.slice(1).map((r) => r.body);
    expect(first.thinking).to.deep.equal({ type: "enabled", budget_tokens: 4096 });
    expect(second).to.not.have.property("thinking");
  });
});

describe("extended thinking turned off", () => {
  const svc = useAnthropicService({ ANTHROPIC_THINKING_BUDGET_TOKENS: "0" });

  it("ANTHROPIC_THINKING_BUDGET_TOKENS=0 never asks for it", async () => {
    const { sessionId } = await createSession(svc.api, { agent: { modelName: "anthropic/claude-sonnet-4-6" } });
    await sendText(svc.api, sessionId, "hi");
    await settle(svc.api, sessionId, 1);
    expect(svc.fake.requests[0]!.body).to.not.have.property("thinking");
  });
});
