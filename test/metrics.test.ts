import { expect } from "chai";
import { capturingLogs } from "./support/logs.js";
import { createSession, sendText, settle, until } from "./support/sessions.js";
import { openSse } from "./support/sse.js";
import { client, otherDeployment, startServer, type Client, type TestServer } from "./support/server.js";
import { allow, toolset } from "./tools-cases.js";

/** The scrape, as Prometheus reads it. */
async function scrape(server: TestServer): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(server.metricsUrl);
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

/** The value of the sample `series{labels}` (labels as the exposition writes them, in order); undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  let server: TestServer;
  let key: string;
  let api: Client;

  before(async () => {
    server = await startServer({ LOG_LEVEL: "warn" });
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server?.close());

  it("exposes requests by route template, turns, model and tool calls, SSE clients, 429s, the wake-up backlog and process metrics", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [toolset(allow)] } });
    const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream`, key);
    await sendText(api, sessionId, "/tool todo {}");
    await settle(api, sessionId, 1);
    const limited = await createSession(api, { agent: { rateLimits: { conversationsPerMinute: 1 } } });
    const refused = await api.post("/v1/sessions", { agentId: limited.agentId, subjectId: limited.subjectId });
    expect(refused.status).to.equal(429);
    expect((await api.get(`/v1/sessions/not-a-session-${Date.now()}`)).status).to.equal(404);

    const { status, type, text } = await scrape(server);
    expect(status).to.equal(200);
    expect(type).to.match(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/v1/sessions/:sessionId/events",status="202"}')).to.be.greaterThan(0);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/v1/sessions/:sessionId",status="404"}')).to.be.greaterThan(0);
    expect(text, "a raw path is never a label").not.to.include(sessionId);
    expect(sample(text, "turns_started_total")).to.be.greaterThan(0);
    expect(sample(text, 'turns_ended_total{stop_reason="end_turn"}')).to.be.greaterThan(0);
    expect(sample(text, 'model_call_duration_seconds_count{outcome="ok"}')).to.be.greaterThan(1);
    expect(sample(text, 'tool_call_duration_seconds_count{tool="todo",outcome="ok"}')).to.be.greaterThan(0);
    expect(sample(text, "sse_clients")).to.be.greaterThan(0);
    expect(sample(text, 'rate_limited_total{resource="conversations"}')).to.be.greaterThan(0);
    expect(sample(text, "wakeup_backlog")).to.be.a("number").and.not.NaN;
    expect(sample(text, "wakeup_oldest_pending_age_seconds")).to.be.a("number").and.not.NaN;
    expect(text).to.include("# TYPE store_errors_total counter");
    expect(sample(text, "process_cpu_user_seconds_total")).to.be.a("number");

    const open = sample(text, "sse_clients")!;
    sse.close();
    await sse.closed;
    await until(
      async () => sample((await scrape(server)).text, "sse_clients"),
      (n) => n === open - 1,
      15_000,
      "the closed stream to leave sse_clients",
    );
  });

  it("serves nothing else on its port", async () => {
    expect((await fetch(server.metricsUrl.replace("/metrics", "/v1/agents"))).status).to.equal(404);
  });

  it("a turn that fails is logged at warn with its session, turn and cause", async () => {
    const { sessionId } = await createSession(api);
    const { lines } = await capturingLogs(async () => {
      await sendText(api, sessionId, "/error the provider is overloaded");
      await settle(api, sessionId, 1);
    });
    const warned = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "turn failed" && l.sessionId === sessionId);
    expect(warned, lines.join("\n")).to.include({ level: "warn" });
    expect(warned!.turnId).to.be.a("string");
    expect(warned!.cause).to.equal("the provider is overloaded");
  });

  // Last: the process's wake-up gauges then read the deployment started last (one scrape target per process).
  it("the wake-up backlog counts wake-ups no worker has taken, and ages the oldest", async () => {
    const apiOnly = await startServer({ ROLE: "api", REDIS_KEY_PREFIX: otherDeployment("metrics") });
    try {
      const other = client(apiOnly.url, await apiOnly.newKey());
      const { sessionId } = await createSession(other);
      expect((await sendText(other, sessionId, "hello")).status).to.equal(202);
      const { text } = await scrape(apiOnly);
      expect(sample(text, "wakeup_backlog")).to.be.greaterThan(0);
      expect(sample(text, "wakeup_oldest_pending_age_seconds")).to.be.at.least(0);
    } finally {
      await apiOnly.close();
    }
  });
});
