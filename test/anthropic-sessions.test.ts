import { expect } from "chai";
import { FAKE_ANTHROPIC_KEY, useAnthropicService } from "./support/anthropic-service.js";
import { openSse } from "./support/sse.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

/** The real @anthropic-ai/sdk inside the service, talking to a local server that speaks the Messages API. */
describe("sessions on the anthropic provider", () => {
  const svc = useAnthropicService();
  const agent = (extra: Record<string, unknown> = {}) => ({ agent: { modelName: "anthropic/claude-sonnet-4-6", systemPrompt: "Be kind.", ...extra } });

  it("streams text deltas over SSE, stores the message, and reports usage with an estimated cost", async () => {
    svc.fake.push({
      text: "Hello from the model, streamed in pieces.",
      chunkSize: 6,
      usage: { input_tokens: 120, output_tokens: 9, cache_read_input_tokens: 30, cache_creation_input_tokens: 10 },
    });
    const { sessionId } = await createSession(svc.api, agent());
    const sse = await openSse(`${svc.server.url}/v1/sessions/${sessionId}/events/stream`, svc.key);
    await sendText(svc.api, sessionId, "hi");
    await sse.waitFor((f) => f.some((x) => x.event === "session.status_idle"));
    sse.close();
    const deltas = sse.frames.filter((f) => f.event === "agent.message" && f.data.payload.delta === true);
    expect(deltas.length).to.be.greaterThan(2);
    expect(deltas.map((d) => d.data.payload.content[0].text).join("")).to.equal("Hello from the model, streamed in pieces.");

    const events = await settle(svc.api, sessionId, 1);
    expect(agentTexts(events)).to.deep.equal(["Hello from the model, streamed in pieces."]);
    const usage = events.find((e) => e.type === "session.status_idle").usage;
    expect(usage).to.include({
      model: "anthropic/claude-sonnet-4-6",
      input: 120,
      output: 9,
      cache_read: 30,
      cache_write: 10,
      total: 169,
      calls: 1,
      cost_status: "estimated",
    });
    expect(usage.cost_usd).to.be.a("number").and.greaterThan(0);

    const request = svc.fake.requests[0]!;
    expect(request.body.model).to.equal("claude-sonnet-4-6");
    expect(request.body.stream).to.equal(true);
    expect(JSON.stringify(request.body.system)).to.include("Be kind.");
    expect(request.body.messages.at(-1).role).to.equal("user");
  });

  it("the tool-use loop: a custom tool with an approval, then the model's answer", async () => {
    svc.fake.push(
      { text: "Let me look that up.", toolUses: [{ id: "toolu_1", name: "lookup", input: { order: "A-1" } }], stopReason: "tool_use" },
      { text: "Your order has shipped." },
    );
    const { sessionId } = await createSession(
      svc.api,
      agent({
        tools: [
          { type: "custom_tool", name: "lookup", description: "Order lookup", input_schema: { type: "object", properties: { order: { type: "string" } } } },
        ],
      }),
    );
    await sendText(svc.api, sessionId, "where is my order?");
    const asked = await until(
      () => history(svc.api, sessionId),
      (h) => h.some((e) => e.type === "session.status_idle"),
    );
    const approval = asked.find((e) => e.type === "agent.approval_request");
    expect(approval.payload).to.deep.include({ tool: "lookup", input: { order: "A-1" } });
    await svc.api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.approval_response", approval_id: approval.id, result: "allow" }] });
    const used = await until(
      () => history(svc.api, sessionId),
      (h) => h.some((e) => e.type === "agent.custom_tool_use"),
    );
    const use = used.find((e) => e.type === "agent.custom_tool_use");
    await until(
      () => svc.api.get(`/v1/sessions/${sessionId}`),
      (r) => r.body.status === "waiting_on_human",
    );
    await svc.api.post(`/v1/sessions/${sessionId}/events`, {
      events: [{ type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "shipped on Monday" }] }],
    });
    const events = await settle(svc.api, sessionId, 3);
    expect(agentTexts(events)).to.deep.equal(["Let me look that up.", "Your order has shipped."]);

    // The second call carries the tool exchange, rebuilt from the log, with the tool declared.
    const second = svc.fake.requests[1]!.body;
    expect(second.tools.map((t: { name: string }) => t.name)).to.include("lookup");
    const assistant = second.messages.at(-2);
    expect(assistant.role).to.equal("assistant");
    expect(assistant.content.find((b: { type: string }) => b.type === "tool_use")).to.deep.include({ id: use.id, name: "lookup", input: { order: "A-1" } });
    const result = second.messages.at(-1).content.find((b: { type: string }) => b.type === "tool_result");
    expect(result.tool_use_id).to.equal(use.id);
    expect(JSON.stringify(result.content)).to.include("shipped on Monday");
    expect(events.find((e) => e.type === "session.status_idle" && e.payload.stop_reason.type === "end_turn").usage.calls).to.equal(2);
  });

  it("thinking reaches the log as agent.thinking", async () => {
    svc.fake.push({ thinking: "The user greets me.", text: "Hello!" });
    const { sessionId } = await createSession(svc.api, agent());
    await sendText(svc.api, sessionId, "hello");
    const events = await settle(svc.api, sessionId, 1);
    const thinking = events.find((e) => e.type === "agent.thinking");
    expect(thinking.payload.content[0].text).to.equal("The user greets me.");
    expect(events.indexOf(thinking)).to.be.lessThan(events.findIndex((e) => e.type === "agent.message"));
  });

  it("retries overloaded and rate-limited answers, then goes on", async () => {
    svc.fake.push({ status: 529 }, { status: 429, retryAfter: 0 }, { text: "third time lucky" });
    const { sessionId } = await createSession(svc.api, agent());
    await sendText(svc.api, sessionId, "try");
    expect(agentTexts(await settle(svc.api, sessionId, 1))).to.deep.equal(["third time lucky"]);
    expect(svc.fake.requests).to.have.length(3);
  });

  it("ends the turn with stop_reason error and a clear message when the API keeps failing", async () => {
    svc.fake.push({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const { sessionId } = await createSession(svc.api, agent());
    await sendText(svc.api, sessionId, "fail");
    const events = await settle(svc.api, sessionId, 1);
    const stop = events.find((e) => e.type === "session.status_idle").payload.stop_reason;
    expect(stop.type).to.equal("error");
    expect(stop.message).to.match(/failed after 4 attempts: 500/);
    expect(stop.message).to.not.include(FAKE_ANTHROPIC_KEY);
  });

  it("attachments reach the model as image and document blocks", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex").toString("base64");
    const pdf = Buffer.from("%PDF-1.4\n%svc.fake\n").toString("base64");
    const { sessionId } = await createSession(svc.api, agent());
    const sent = await svc.api.post(`/v1/sessions/${sessionId}/events`, {
      events: [
        {
          type: "user.message",
          content: [{ type: "text", text: "what are these?" }],
          attachments: [
            { type: "file", filename: "dot.png", mediaType: "image/png", source: { type: "data_url", dataUrl: `data:image/png;base64,${png}` } },
            { type: "file", filename: "doc.pdf", mediaType: "application/pdf", source: { type: "data_url", dataUrl: `data:application/pdf;base64,${pdf}` } },
          ],
        },
      ],
    });
    expect(sent.status).to.equal(202);
    await settle(svc.api, sessionId, 1);
    const blocks = svc.fake.requests[0]!.body.messages[0].content as { type: string; source?: { type: string; media_type: string; data: string } }[];
    expect(blocks.find((b) => b.type === "image")!.source).to.deep.include({ type: "base64", media_type: "image/png", data: png });
    expect(blocks.find((b) => b.type === "document")!.source).to.deep.include({ type: "base64", media_type: "application/pdf", data: pdf });
  });

  it("skills reach the model as names in the system prompt, read in full with skill_view", async () => {
    const { sessionId } = await createSession(svc.api, agent({ skills: [{ name: "refunds", content: "# Refund policy\nWithin 30 days, no questions." }] }));
    await sendText(svc.api, sessionId, "hi");
    await settle(svc.api, sessionId, 1);
    const body = svc.fake.requests[0]!.body;
    const system = JSON.stringify(body.system);
    expect(system).to.include("Be kind.").and.include("refunds: Refund policy").and.include("skill_view");
    expect(system).to.not.include("no questions");
    expect(body.tools.map((t: { name: string }) => t.name)).to.include("skill_view");
  });

  it("a skill written with skill_manage is in the system prompt from the next turn", async () => {
    const content = "---\nname: greeting\ndescription: Use when greeting a returning customer.\n---\nSay their name.";
    svc.fake.push(
      { text: "", toolUses: [{ id: "toolu_s", name: "skill_manage", input: { action: "create", name: "greeting", content } }], stopReason: "tool_use" },
      { text: "Noted." },
      { text: "Hi again." },
    );
    const allowAll = { type: "agent_toolset", defaultConfig: { enabled: true, permissionPolicy: { type: "always_allow" } }, configs: [] };
    const { sessionId } = await createSession(svc.api, agent({ tools: [allowAll] }));
    await sendText(svc.api, sessionId, "remember how to greet me");
    await settle(svc.api, sessionId, 1);
    await sendText(svc.api, sessionId, "hello");
    await settle(svc.api, sessionId, 2);
    const systems = svc.fake.requests.map((r) => JSON.stringify(r.body.system));
    expect(systems).to.have.length(3);
    // The turn that wrote it keeps the system prompt it started with.
    expect(systems[1]).to.not.include("greeting");
    expect(systems[2])
      .to.include("Your skills for this user")
      .and.include("- greeting: Use when greeting a returning customer.")
      .and.not.include("Say their name.");
  });

  it("an unknown model provider is refused when the agent is created", async () => {
    const res = await svc.api.post("/v1/agents", { name: "x", modelName: "acme/gpt-x", systemPrompt: "", skills: [], tools: [] });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal("modelName: provider must be one of: anthropic, mock, openai");
  });
});
