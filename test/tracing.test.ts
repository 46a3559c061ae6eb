import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { Collector, collectorUnavailable, type ExportedSpan } from "./support/otel-collector.js";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { testKeys, testRedis } from "./support/redis.js";
import { client, LOOPBACK, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, settle, until } from "./support/sessions.js";
import { allow, lookup, toolset } from "./tools-cases.js";
import { attach, mcpAgent, mcpToolset, sessionOf, vaultWith } from "./support/mcp-agents.js";
import { startBearerServer, type BearerServer } from "./support/mcp-servers.js";
import { env } from "./support/hooks.js";
import { webhookReceiver } from "./support/webhook-receiver.js";

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** The spans of one trace, once the append of `session.status_idle` and the pass around it have been exported. */
async function traceOf(collector: Collector, traceId: string): Promise<ExportedSpan[]> {
  return until(
    async () => (await collector.spans()).filter((s) => s.traceId === traceId),
    // The worker's pass ends last, after the turn that wrote the idle status.
    (spans) =>
      spans.some((s) => s.name === "session.append" && (s.attributes["agent_sessions.event.types"] as string[]).includes("session.status_idle")) &&
      spans.some((s) => s.name === "session.process"),
    20_000,
    "the trace's spans down to session.status_idle",
  );
}

/** The names of a span's ancestors, nearest first. */
function ancestors(spans: ExportedSpan[], span: ExportedSpan): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const out: string[] = [];
  for (let p = byId.get(span.parentSpanId); p; p = byId.get(p.parentSpanId)) out.push(p.name);
  return out;
}

describe("tracing: OpenTelemetry spans exported to a real collector", function () {
  this.timeout(600_000);
  let collector: Collector;
  let server: TestServer;
  let apiProcess: ServiceProcess;
  let worker: ServiceProcess;
  let key: string;
  let api: Client;
  let mcp: BearerServer;
  const token = hex(16);
  // Both processes open the vault's credential and may reach the loopback MCP server and webhook receiver.
  const otel = () => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    VAULT_ENCRYPTION_KEY: env.vaultKey,
    OUTBOUND_ALLOWED_NETWORKS: LOOPBACK,
  });

  before(async function () {
    const missing = await collectorUnavailable();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      return this.skip();
    }
    [collector, mcp] = await Promise.all([Collector.start(), startBearerServer({ token })]);
    // In this process tracing is off: it makes keys, and shows what an untraced append writes.
    server = await startServer({ ROLE: "api" });
    key = await server.newKey();
    // The API at debug, so that each request writes a line inside its span.
    [apiProcess, worker] = await Promise.all([startProcess("api", { ...otel(), LOG_LEVEL: "debug" }), startProcess("worker", otel())]);
    api = client(apiProcess.url, key);
  });
  after(async () => {
    await Promise.all([apiProcess?.stop(), worker?.stop()]);
    await server?.close();
    await Promise.all([collector?.stop(), mcp?.close()]);
  });

  it("one trace runs from the POST (its caller's traceparent honoured) through the wake-up to the worker's turn, model and tool calls, and session.status_idle", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [toolset(allow)] } });
    const [traceId, callerSpan] = [hex(16), hex(8)];
    const sent = await api.post(
      `/v1/sessions/${sessionId}/events`,
      { events: [{ type: "user.message", content: [{ type: "text", text: "/tool todo {}" }] }] },
      {
        headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
      },
    );
    expect(sent.status).to.equal(202);
    await settle(api, sessionId, 1);
    const spans = await traceOf(collector, traceId);

    const post = spans.find((s) => s.name === "POST /v1/sessions/:sessionId/events")!;
    expect(post, spans.map((s) => s.name).join(", ")).to.not.equal(undefined);
    expect(post.parentSpanId).to.equal(callerSpan);
    expect(post.attributes["http.response.status_code"]).to.equal(202);
    expect(new Set(spans.map((s) => s.resource["agent_sessions.role"]))).to.deep.equal(new Set(["api", "worker"]));

    const pass = spans.find((s) => s.name === "session.process")!;
    expect(ancestors(spans, pass)).to.deep.equal(["session.append", "POST /v1/sessions/:sessionId/events"]);
    const chat = spans.find((s) => s.name.startsWith("chat "))!;
    expect(ancestors(spans, chat)).to.include.members(["session.turn", "session.process", "POST /v1/sessions/:sessionId/events"]);
    expect(chat.attributes).to.include({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "mock", "gen_ai.system": "mock" });
    expect(chat.attributes["gen_ai.request.model"]).to.be.a("string");
    expect(chat.attributes["gen_ai.response.model"]).to.equal(chat.attributes["gen_ai.request.model"]);
    expect(chat.attributes["gen_ai.usage.input_tokens"]).to.be.a("number");
    expect(chat.attributes["gen_ai.usage.output_tokens"]).to.be.a("number");
    const reasons = spans.filter((s) => s.name.startsWith("chat ")).map((s) => (s.attributes["gen_ai.response.finish_reasons"] as string[])[0]);
    expect(reasons).to.deep.equal(["tool_call", "stop"]);
    const tool = spans.find((s) => s.name === "execute_tool todo")!;
    expect(ancestors(spans, tool)).to.include("session.turn");
    expect(tool.attributes).to.include({ "gen_ai.tool.name": "todo", "gen_ai.tool.type": "function", "agent_sessions.tool.kind": "builtin" });

    // Content stays out without the opt-in, and no secret is in any span.
    for (const s of spans) {
      expect(
        Object.keys(s.attributes).filter((k) => /messages|instructions|arguments|result$/.test(k)),
        s.name,
      ).to.deep.equal([]);
      expect(JSON.stringify(s.attributes)).to.not.include(key);
      expect(Object.keys(s.attributes).filter((k) => /authorization|api[-_.]?key|cookie/i.test(k))).to.deep.equal([]);
    }
    // A log line written in the trace carries its ids (the request's line, at debug).
    expect(apiProcess.output()).to.match(new RegExp(`"trace_id":"${traceId}","span_id":"[0-9a-f]{16}"`));
  });

  it("with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true the model and tool spans carry the content, and still no secret", async () => {
    await worker.stop();
    worker = await startProcess("worker", { ...otel(), OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" });
    const { sessionId } = await createSession(api, { agent: { tools: [toolset(allow)] } });
    const traceId = hex(16);
    await api.post(
      `/v1/sessions/${sessionId}/events`,
      { events: [{ type: "user.message", content: [{ type: "text", text: "/tool todo {}" }] }] },
      {
        headers: { traceparent: `00-${traceId}-${hex(8)}-01` },
      },
    );
    await settle(api, sessionId, 1);
    const spans = await traceOf(collector, traceId);
    const chat = spans.find((s) => s.name.startsWith("chat "))!;
    expect(chat.attributes["gen_ai.input.messages"]).to.include("/tool todo {}");
    expect(chat.attributes["gen_ai.system_instructions"]).to.be.a("string");
    expect(chat.attributes["gen_ai.output.messages"]).to.include("tool_call");
    const tool = spans.find((s) => s.name === "execute_tool todo")!;
    expect(tool.attributes["gen_ai.tool.call.arguments"]).to.equal("{}");
    expect(tool.attributes["gen_ai.tool.call.result"]).to.include("todo list is empty");
    for (const s of spans) expect(JSON.stringify(s.attributes)).to.not.include(key);
  });

  it("a custom tool call handed to the caller is an execute_tool span in the turn's trace", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [lookup()] } });
    const traceId = hex(16);
    await api.post(
      `/v1/sessions/${sessionId}/events`,
      { events: [{ type: "user.message", content: [{ type: "text", text: '/tool lookup {"order":"A1"}' }] }] },
      {
        headers: { traceparent: `00-${traceId}-${hex(8)}-01` },
      },
    );
    const spans = await traceOf(collector, traceId);
    const call = spans.find((s) => s.name === "execute_tool lookup")!;
    expect(call, spans.map((s) => s.name).join(", ")).to.not.equal(undefined);
    expect(call.attributes).to.include({ "gen_ai.tool.name": "lookup", "agent_sessions.tool.kind": "custom" });
    expect(ancestors(spans, call)).to.include("session.turn");
  });

  it("an MCP call is a CLIENT span whose context the server receives in traceparent; the vault's token is in no span", async () => {
    const agentId = await mcpAgent(api, [{ name: "tools", url: mcp.url }], [mcpToolset("tools")]);
    await attach(api, agentId, (await vaultWith(api, { type: "static_bearer", mcpServerUrl: mcp.url, token })).vaultId);
    const sessionId = await sessionOf(api, agentId);
    const traceId = hex(16);
    await api.post(
      `/v1/sessions/${sessionId}/events`,
      { events: [{ type: "user.message", content: [{ type: "text", text: '/tool mcp__tools__add {"a":2,"b":3}' }] }] },
      {
        headers: { traceparent: `00-${traceId}-${hex(8)}-01` },
      },
    );
    await settle(api, sessionId, 1);
    const spans = await traceOf(collector, traceId);
    const call = spans.find((s) => s.name === "tools/call add")!;
    expect(call, spans.map((s) => s.name).join(", ")).to.not.equal(undefined);
    expect(call.kind).to.equal(3); // CLIENT
    expect(call.attributes).to.include({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "add", "server.address": "127.0.0.1" });
    expect(ancestors(spans, call)[0]).to.equal("execute_tool mcp__tools__add");
    expect(mcp.auth.traceparents).to.include(`00-${traceId}-${call.spanId}-01`);
    for (const s of spans) expect(JSON.stringify(s.attributes)).to.not.include(token);
  });

  it("a webhook delivery is a CLIENT span, and its request names it in traceparent", async () => {
    const receiver = await webhookReceiver();
    const scheduler = await startProcess("scheduler", { ...otel(), WEBHOOK_SWEEP_INTERVAL_MS: "50" });
    try {
      expect((await api.post("/v1/webhooks", { url: receiver.url("/hooks") })).status).to.equal(201);
      const { sessionId } = await createSession(api);
      await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.message", content: [{ type: "text", text: "hello" }] }] });
      const delivered = await until(
        async () => receiver.received.filter((r) => r.path === "/hooks"),
        (list) => list.length > 0,
        20_000,
        "a webhook delivery",
      );
      const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(delivered[0]!.headers.traceparent ?? "") ?? [];
      expect(traceId, JSON.stringify(delivered[0]!.headers)).to.be.a("string");
      const spans = await until(
        async () => (await collector.spans()).filter((s) => s.spanId === spanId),
        (list) => list.length > 0,
        20_000,
        "the delivery's span",
      );
      expect(spans[0]!).to.deep.include({ traceId, name: "webhook.deliver", kind: 3 });
      expect(spans[0]!.attributes).to.include({ "http.request.method": "POST", "http.response.status_code": 204, "server.address": "127.0.0.1" });
      expect(JSON.stringify(spans[0]!.attributes)).to.not.include("whsec_");
    } finally {
      await scheduler.stop();
      await receiver.close();
    }
  });

  it("with tracing off, a wake-up carries no trace context", async () => {
    const local = client(server.url, key);
    const { sessionId } = await createSession(local);
    await local.post(
      `/v1/sessions/${sessionId}/events`,
      { events: [{ type: "user.message", content: [{ type: "text", text: "hello" }] }] },
      {
        headers: { traceparent: `00-${hex(16)}-${hex(8)}-01` },
      },
    );
    const entries = await testRedis().xrevrange(testKeys().wakeups(0), "+", "-", "COUNT", 200);
    const mine = entries.filter(([, fields]) => fields[1] === sessionId);
    expect(mine.length).to.be.greaterThan(0);
    for (const [, fields] of mine) expect(fields).to.deep.equal(["session", sessionId]);
  });
});
