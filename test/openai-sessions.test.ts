import { expect } from "chai";
import { useOpenAiService } from "./support/openai-service.js";
import { deploymentBody, deploymentsClient } from "./support/deployments.js";
import { openSse } from "./support/sse.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

/** The real `openai` SDK inside the service, talking to local servers that speak Chat Completions. */
describe("sessions on the OpenAI-compatible providers", () => {
  const svc = useOpenAiService();
  const agent = (extra: Record<string, unknown> = {}) => ({ agent: { modelName: "openai/gpt-4o", systemPrompt: "Be kind.", ...extra } });

  it("streams text deltas over SSE, stores the message, and reports usage with an estimated cost", async () => {
    svc.fake.push({ text: "Hello from the model, streamed in pieces.", chunkSize: 6, usage: { prompt_tokens: 150, cached_tokens: 30, completion_tokens: 9 } });
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
    expect(usage).to.include({ model: "openai/gpt-4o", input: 120, cache_read: 30, output: 9, calls: 1, context_max: 128_000, cost_status: "estimated" });
    expect(usage.cost_usd).to.be.closeTo((120 * 2.5 + 30 * 1.25 + 9 * 10) / 1e6, 1e-6);
    expect(svc.fake.requests[0]!.body.model).to.equal("gpt-4o");
  });

  it("the tool loop: a streamed tool call, its approval and result, then the answer, the call named by its event id", async () => {
    svc.fake.push({ text: "Let me look.", toolCalls: [{ id: "call_xyz", name: "lookup", input: { order: "A-1" } }], chunkSize: 4 }, { text: "Shipped." });
    const tool = {
      type: "custom_tool",
      name: "lookup",
      description: "Order lookup",
      input_schema: { type: "object", properties: { order: { type: "string" } } },
    };
    const { sessionId } = await createSession(svc.api, agent({ tools: [tool] }));
    const sse = await openSse(`${svc.server.url}/v1/sessions/${sessionId}/events/stream`, svc.key);
    await sendText(svc.api, sessionId, "where is my order?");
    const asked = await until(
      () => history(svc.api, sessionId),
      (h) => h.some((e) => e.type === "agent.approval_request"),
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
    sse.close();
    expect(agentTexts(events)).to.deep.equal(["Let me look.", "Shipped."]);
    // The provisional frames carry the model's id; the durable events and the transcript, the worker's.
    expect(sse.frames.some((f) => f.data?.payload?.status === "streaming" && f.data.payload.id === "call_xyz")).to.equal(true);
    const second = svc.fake.requests[1]!.body.messages;
    expect(second.at(-2).tool_calls[0]).to.deep.equal({ id: use.id, type: "function", function: { name: "lookup", arguments: '{"order":"A-1"}' } });
    expect(second.at(-1)).to.deep.include({ role: "tool", tool_call_id: use.id });
    expect(second.at(-1).content).to.include("shipped on Monday");
  });

  it("a named endpoint serves local/<model> with its own address, key and window", async () => {
    svc.local.push({ reasoning: "Plan.", text: "Local answer." });
    const { sessionId } = await createSession(svc.api, agent({ modelName: "local/qwen3" }));
    await sendText(svc.api, sessionId, "hi");
    const events = await settle(svc.api, sessionId, 1);
    expect(agentTexts(events)).to.deep.equal(["Local answer."]);
    expect(events.find((e) => e.type === "agent.thinking").payload.content[0].text).to.equal("Plan.");
    const usage = events.find((e) => e.type === "session.status_idle").usage;
    expect(usage).to.include({ model: "local/qwen3", context_max: 32_768, cost_status: "unknown" });
    expect(svc.local.requests[0]!.body).to.include({ model: "qwen3", max_tokens: 8192 });
    expect(svc.fake.requests).to.have.length(0);
  });

  it("an unknown model, a content filter and a cut stream end the turn with stop_reason error and a clear message, never the key", async () => {
    const stopOf = async (modelName: string) => {
      const { sessionId } = await createSession(svc.api, agent({ modelName }));
      await sendText(svc.api, sessionId, "go");
      return (await settle(svc.api, sessionId, 1)).find((e) => e.type === "session.status_idle").payload.stop_reason;
    };
    expect(await stopOf("local/nope")).to.deep.include({
      type: "error",
      message: "the local API refused the request: 404 model_not_found: The model `nope` does not exist",
    });
    svc.fake.push({ text: "Some", finishReason: "content_filter" });
    expect((await stopOf("openai/gpt-4o")).message).to.equal("the openai model's answer was stopped by the content filter");
    svc.fake.push({ text: "Half", cut: true });
    expect((await stopOf("openai/gpt-4o")).message).to.equal("the openai API failed during the response: the response stream ended before a finish reason");
    svc.fake.push({ status: 401, message: `Incorrect API key provided: ${svc.openaiKey}` });
    const stop = await stopOf("openai/gpt-4o");
    expect(stop.message).to.include("401").and.include("[redacted]").and.not.include(svc.openaiKey);
  });

  it("agents and deployments take the configured providers' names, and refuse others naming them", async () => {
    const res = await svc.api.post("/v1/agents", { name: "x", modelName: "acme/gpt-x", systemPrompt: "", skills: [], tools: [] });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal("modelName: provider must be one of: anthropic, mock, openai, local");
    const { api } = await deploymentsClient(svc.server);
    const created = await api.post("/v1/deployments", deploymentBody({ model: "local/qwen3" }));
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.model).to.equal("local/qwen3");
  });
});
