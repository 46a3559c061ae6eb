/**
 * Session preparation: a prewarm creates nothing and is safe to repeat, yet connects the agent's MCP
 * servers and lists their tools before any session exists, so the first turn opens no connection;
 * session creation prepares the same way, and the session's workspace with it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { attach, mcpAgent, mcpToolset, vaultWith } from "./support/mcp-agents.js";
import { startBearerServer, type RecordingServer } from "./support/mcp-servers.js";
import { createAgent, newSubject, newTenant } from "./support/api.js";
import { secret } from "./support/secrets.js";
import { startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, sendText, settle, until } from "./support/sessions.js";

describe("session preparation", () => {
  const token = secret();
  let mcp: RecordingServer;
  let server: TestServer;
  before(async () => {
    mcp = await startBearerServer({ token });
    server = await startServer();
  });
  after(async () => {
    await server?.close();
    await mcp?.close();
  });

  const warm = (api: Client, agentId: string, subjectId = newSubject()) => api.post("/v1/sandboxes/warm", { agentId, subjectId });
  /** The methods the MCP server was sent from now on, and a wait for the first `tools/list` among them. */
  function watch() {
    const from = mcp.methods.length;
    const since = () => mcp.methods.slice(from);
    const listed = () =>
      until(
        async () => since(),
        (m) => m.includes("tools/list"),
        15_000,
        "the MCP server to be listed",
      );
    return { since, listed };
  }
  /** A fresh organization (so a connection of its own in the pool) with an agent using the server through its vault. */
  async function mcpTenant(extraTools: unknown[] = []) {
    const api = await newTenant(server);
    const agentId = await mcpAgent(api, [{ name: "tools", url: mcp.url }], [mcpToolset("tools"), ...extraTools]);
    await attach(api, agentId, (await vaultWith(api, { type: "static_bearer", mcpServerUrl: mcp.url, token })).vaultId);
    return { api, agentId };
  }

  it("a prewarm answers 202 the same each time, and creates no session, no history and no allowance use", async () => {
    const api = await newTenant(server);
    const agent = await createAgent(api, { rateLimits: { conversationsPerMinute: 1, messagesPerMinute: 10 } });
    const subjectId = newSubject();
    for (let i = 0; i < 3; i++) {
      const res = await warm(api, agent.id, subjectId);
      expect(res.status).to.equal(202);
      expect(res.body).to.deep.equal({ object: "sandbox.warm", status: "warming", reason: null, agentId: agent.id, subjectId });
    }
    expect((await api.get("/v1/sessions")).body.data).to.deep.equal([]);
    expect((await api.get("/v1/sessions?status=archived")).body.data).to.deep.equal([]);
    // The one conversation a minute is still there to take: prewarms counted nothing.
    expect((await api.post("/v1/sessions", { agentId: agent.id, subjectId })).status).to.equal(201);
    expect((await api.post("/v1/sessions", { agentId: agent.id, subjectId })).status).to.equal(429);
  });

  it("an archived agent is refused as for session creation; another organization's agent is 404", async () => {
    const api = await newTenant(server);
    const agent = await createAgent(api);
    expect((await api.post(`/v1/agents/${agent.id}/archive`)).status).to.equal(200);
    const refused = await warm(api, agent.id);
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal("invalid_state");
    const other = await newTenant(server);
    const missing = await warm(other, (await createAgent(api)).id);
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.equal("not_found");
  });

  it("a bad body is 400 naming each failing path as the schema says", async () => {
    const { api, agentId } = await mcpTenant();
    const cases: [unknown, string][] = [
      [{}, "agentId: is required; subjectId: is required"],
      [{ agentId, subjectId: "" }, "subjectId: must not be empty"],
      [{ agentId: "a".repeat(101), subjectId: "s".repeat(201) }, "agentId: must be at most 100 characters; subjectId: must be at most 200 characters"],
      [{ agentId, subjectId: 7, extra: true }, "extra: is not allowed; subjectId: must be string"],
    ];
    for (const [body, message] of cases) {
      const res = await api.post("/v1/sandboxes/warm", body);
      expect([res.status, res.body]).to.deep.equal([400, { error: "validation_error", message, requestId: res.headers.get("x-request-id") }]);
    }
  });

  it("a prewarm connects and lists the agent's MCP server before any session exists; the first turn then opens no connection", async () => {
    const { api, agentId } = await mcpTenant();
    const before = watch();
    const res = await warm(api, agentId);
    expect(res.status).to.equal(202);
    expect(res.body.reason).to.equal(null);
    expect(await before.listed()).to.deep.equal(["initialize", "notifications/initialized", "tools/list"]);
    expect(mcp.auth.headers.at(-1)).to.equal(`Bearer ${token}`);
    expect((await api.get("/v1/sessions")).body.data).to.deep.equal([]);

    const turn = watch();
    const session = await api.post("/v1/sessions", { agentId, subjectId: newSubject() });
    await sendText(api, session.body.id, '/tool mcp__tools__echo {"text":"warm"}');
    expect(agentTexts(await settle(api, session.body.id, 1))).to.deep.equal(["tool mcp__tools__echo result: warm"]);
    expect(turn.since(), "the turn used the prepared connection and tool list").to.deep.equal(["tools/call"]);
  });

  it("a storm of prewarms, of one subject or many, connects and lists once", async () => {
    const { api, agentId } = await mcpTenant();
    const storm = watch();
    const one = newSubject();
    const answers = await Promise.all([...Array.from({ length: 5 }, () => warm(api, agentId, one)), ...Array.from({ length: 5 }, () => warm(api, agentId))]);
    expect(answers.map((r) => r.status)).to.deep.equal(Array(10).fill(202));
    await storm.listed();
    // A turn afterwards is a point by which every hint has been handled (hints are heard in order).
    const session = await api.post("/v1/sessions", { agentId, subjectId: one });
    await sendText(api, session.body.id, '/tool mcp__tools__echo {"text":"after"}');
    await settle(api, session.body.id, 1);
    expect(storm.since()).to.deep.equal(["initialize", "notifications/initialized", "tools/list", "tools/call"]);
  });

  it("the reason names a server that cannot be prepared for its credential, and the answer is still 202", async () => {
    const api = await newTenant(server);
    const agentId = await mcpAgent(api, [{ name: "tools", url: mcp.url }]);
    const bearer = { type: "static_bearer", mcpServerUrl: mcp.url, token };
    await attach(api, agentId, (await vaultWith(api, bearer, bearer)).vaultId);
    const res = await warm(api, agentId);
    expect(res.status).to.equal(202);
    expect(res.body.reason).to.equal("the MCP server tools cannot be prepared: several credentials of the agent's vaults match it; keep one");
  });

  it("a preparation that fails (the server refuses the credential) changes neither the answer nor the first turn", async () => {
    const api = await newTenant(server);
    const agentId = await mcpAgent(api, [{ name: "tools", url: mcp.url }]);
    const refused = secret();
    await attach(api, agentId, (await vaultWith(api, { type: "static_bearer", mcpServerUrl: mcp.url, token: refused })).vaultId);
    const res = await warm(api, agentId);
    expect(res.status).to.equal(202);
    expect(res.body.reason).to.equal(null);
    await until(
      async () => mcp.auth.headers,
      (seen) => seen.includes(`Bearer ${refused}`),
      15_000,
      "the preparation to reach the server",
    );

    const session = await api.post("/v1/sessions", { agentId, subjectId: newSubject() });
    await sendText(api, session.body.id, '/tool mcp__tools__echo {"text":"x"}');
    const events = await settle(api, session.body.id, 1);
    const result = events.find((e) => e.type === "agent.mcp_tool_result")?.payload;
    expect([result?.is_error, result?.content[0].text]).to.deep.equal([true, "the MCP server tools could not be used (HTTP 401)"]);
    expect(events.filter((e) => e.type === "session.status_idle").at(-1).payload.stop_reason.type).to.equal("end_turn");
  });

  it("a first turn posted right after creation shares the preparation's listing: the server is listed once", async () => {
    const { api, agentId } = await mcpTenant();
    const turn = watch();
    const session = await api.post("/v1/sessions", { agentId, subjectId: newSubject() });
    await sendText(api, session.body.id, '/tool mcp__tools__echo {"text":"at once"}');
    expect(agentTexts(await settle(api, session.body.id, 1))).to.deep.equal(["tool mcp__tools__echo result: at once"]);
    expect(turn.since()).to.deep.equal(["initialize", "notifications/initialized", "tools/list", "tools/call"]);
  });

  it("session creation prepares by itself: the server is listed and the workspace made before any message", async () => {
    const { api, agentId } = await mcpTenant([{ type: "agent_toolset" }]);
    const created = watch();
    const session = await api.post("/v1/sessions", { agentId, subjectId: newSubject() });
    expect(session.status).to.equal(201);
    expect(await created.listed()).to.deep.equal(["initialize", "notifications/initialized", "tools/list"]);
    const workspace = join(server.core.process.config.workspaceRoot, session.body.id);
    await until(
      async () => existsSync(workspace),
      (made) => made,
      15_000,
      "the workspace to be made",
    );
    expect((await api.get(`/v1/sessions/${session.body.id}/events`)).body.data).to.deep.equal([]);
  });
});
