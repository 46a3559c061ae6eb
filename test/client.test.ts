import { ApiError, AuthenticationError, createAgentSessionsClient, isApiError, ok, type AgentSessionsClient, type RetryInfo } from "@agent-sessions/client";
import { expect } from "chai";
import { loadConfig } from "../src/config.js";
import { deploymentsOpenApi } from "../src/deployments/http/app.js";
import { coreOpenApi } from "../src/http/app.js";
import type { Services } from "../src/http/context.js";
import { Validator } from "../src/http/validate.js";
import { createLogger } from "../src/log.js";
import { newSubject } from "./support/api.js";
import { roomInWindow } from "./support/expect.js";
import { client, startServer, type TestServer } from "./support/server.js";
import { until } from "./support/sessions.js";

const text = (t: string) => ({ type: "user.message" as const, content: [{ type: "text" as const, text: t }] });

/** The typed client (clients/typescript) against the real service: typed calls, typed refusals, retries. */
describe("the TypeScript client", () => {
  let server: TestServer;
  let key: string;
  let sessions: AgentSessionsClient;
  before(async () => {
    server = await startServer();
    key = await server.newKey();
    sessions = createAgentSessionsClient({ baseUrl: server.url, apiKey: key });
  });
  after(async () => server.close());

  const newAgent = (c: AgentSessionsClient, conversationsPerMinute = 5) =>
    ok(
      c.api.POST("/v1/agents", {
        body: { name: "Typed", modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [], rateLimits: { conversationsPerMinute } },
      }),
    );

  it("creates an agent and a session, sends a message and lists the history, every shape typed by the document", async () => {
    const agent = await newAgent(sessions);
    expect(agent.version.version).to.equal(1);
    const session = await ok(sessions.api.POST("/v1/sessions", { body: { agentId: agent.id, subjectId: newSubject(), title: "typed" } }));
    expect(session.status).to.equal("idle");
    const path = { sessionId: session.id };
    const accepted = await ok(sessions.api.POST("/v1/sessions/{sessionId}/events", { params: { path }, body: { events: [text("hello")] } }));
    expect(accepted.data.map((e) => [e.type, e.sequence])).to.deep.equal([["user.message", 1]]);
    const listed = () => ok(sessions.api.GET("/v1/sessions/{sessionId}/events", { params: { path, query: { after: 0, limit: 100 } } }));
    const events = (await until(listed, (page) => page.data.some((e) => e.type === "session.status_idle"))).data;
    expect(events.map((e) => e.sequence)).to.deep.equal(events.map((_, i) => i + 1));
    expect(events.map((e) => e.type)).to.include.members(["user.message", "session.status_running", "agent.message", "session.status_idle"]);
    // What the compiler refuses is part of the contract too (never run).
    void (() => {
      // @ts-expect-error: a session needs its subject
      void sessions.api.POST("/v1/sessions", { body: { agentId: agent.id } });
      // @ts-expect-error: no such path
      void sessions.api.GET("/v1/session");
      // @ts-expect-error: the path's parameter is required
      void sessions.api.GET("/v1/sessions/{sessionId}");
    });
  });

  it("throws refusals as ApiError with the status and the spec's code", async () => {
    const missing = await sessions.api.GET("/v1/sessions/{sessionId}", { params: { path: { sessionId: "ses_none" } } }).catch((e: unknown) => e);
    expect(isApiError(missing, "not_found")).to.equal(true);
    expect(missing).to.include({ status: 404, code: "not_found" });
    const invalid = (await sessions.api.POST("/v1/sessions", { body: { agentId: "agt_x", subjectId: "" } }).catch((e: unknown) => e)) as ApiError;
    expect(invalid).to.include({ status: 400, code: "validation_error" });
    expect(invalid.message).to.match(/^subjectId: /);
    const stranger = createAgentSessionsClient({ baseUrl: server.url, apiKey: "ask_not_a_key" });
    const refused = await stranger.api.GET("/v1/agents").catch((e: unknown) => e);
    expect(refused)
      .to.be.instanceOf(AuthenticationError)
      .and.instanceOf(ApiError)
      .and.include({ status: 401, code: "unauthorized", name: "AuthenticationError" });
    expect((refused as ApiError).requestId).to.match(/\S/);
  });

  it("after a 429, waits the Retry-After and sends again; gives up when told to (attempts, longest wait)", async function () {
    this.timeout(120_000);
    await roomInWindow(5_000);
    const agent = await newAgent(sessions, 1);
    const subjectId = newSubject();
    const body = { agentId: agent.id, subjectId, title: "limited" };
    await ok(sessions.api.POST("/v1/sessions", { body }));

    const once = createAgentSessionsClient({ baseUrl: server.url, apiKey: key, maxRetries: 0 });
    const limited = (await once.api.POST("/v1/sessions", { body }).catch((e: unknown) => e)) as ApiError;
    expect(limited).to.include({ status: 429, code: "rate_limited" });
    expect(limited.rateLimit).to.include({ resource: "conversations", limit: 1, remaining: 0 });
    expect(limited.retryAfterSeconds).to.equal(limited.rateLimit!.resetAfterSeconds).and.to.be.within(1, 60);
    const impatient = createAgentSessionsClient({ baseUrl: server.url, apiKey: key, retry: { maxDelayMs: 500 } });
    expect(await impatient.api.POST("/v1/sessions", { body }).catch((e: unknown) => e)).to.include({ code: "rate_limited" });

    const retries: RetryInfo[] = [];
    const patient = createAgentSessionsClient({ baseUrl: server.url, apiKey: key, retry: { onRetry: (r) => retries.push(r) } });
    const created = await ok(patient.api.POST("/v1/sessions", { body }));
    expect(created.subjectId).to.equal(subjectId);
    expect(retries).to.have.length(1);
    expect(retries[0]).to.include({ method: "POST", attempt: 1, status: 429 });
    expect(retries[0]!.delayMs).to.be.at.least(retries[0]!.retryAfterSeconds! * 1000);
    const listed = await ok(sessions.api.GET("/v1/sessions", { params: { query: { subjectId } } }));
    expect(listed.data.map((s) => s.id).sort())
      .to.have.length(2)
      .and.include(created.id);
  });

  it("was generated from the documents the service serves (both interfaces)", async () => {
    const declaring = { config: loadConfig({}), log: createLogger("error", {}, () => undefined), validator: new Validator() } as unknown as Services;
    expect(coreOpenApi(declaring)).to.deep.equal((await client(server.url).get("/v1/openapi.json")).body);
    expect(deploymentsOpenApi(declaring as never)).to.deep.equal((await client(server.deploymentsUrl).get("/v1/openapi.json")).body);
  });
});
