import { expect } from "chai";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, history, sendText, settle } from "./support/sessions.js";
import { allow, ask, deny, lookup, sessionSteps, toolset } from "./tools-cases.js";

describe("tools: permissions, approvals, custom tools and clarify", () => {
  let server: TestServer;
  let api: Client;
  let key: string;

  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}` });
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server.close());

  const { post, paused, approve } = sessionSteps(() => api);

  describe("approvals", () => {
    it("always_ask: approval request, requires_action, waiting_on_human; on allow the tool use follows and the turn goes on", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      const { events, blocking } = await paused(sessionId);
      expect(events.map((e) => e.type)).to.deep.equal(["user.message", "session.status_running", "agent.approval_request", "session.status_idle"]);
      const request = events[2];
      expect(blocking).to.deep.equal([request.id]);
      expect(request.payload).to.include({ tool: "todo" });
      expect(request.payload.tool_use_id).to.be.a("string");
      expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("waiting_on_human");
      expect((await api.get(`/v1/sessions?status=running`)).body.data.map((s: { id: string }) => s.id)).to.not.include(sessionId);
      const waiting = async () =>
        (await api.get(`/v1/sessions?waitingOnHuman=true&limit=100`)).body.data.map((s: { id: string; status: string }) => [s.id, s.status]);
      expect(await waiting()).to.deep.include([sessionId, "waiting_on_human"]);

      const res = await approve(sessionId, request.id);
      expect(res.status).to.equal(202);
      const done = await settle(api, sessionId, 2);
      expect(done.slice(4).map((e) => e.type)).to.deep.equal([
        "user.approval_response",
        "session.status_running",
        "agent.tool_use",
        "agent.tool_result",
        "agent.message",
        "session.status_idle",
        "session.title_updated",
      ]);
      const use = done.find((e) => e.type === "agent.tool_use");
      expect(use.payload).to.deep.include({ id: request.payload.tool_use_id, tool: "todo", input: {}, status: "running" });
      const result = done.find((e) => e.type === "agent.tool_result");
      expect(result.payload).to.deep.include({ tool_use_id: use.payload.id, tool: "todo", status: "completed", is_error: false });
      expect(agentTexts(done)).to.deep.equal(["tool todo result: The todo list is empty."]);
      expect(done.at(-2).payload.stop_reason).to.deep.equal({ type: "end_turn" });
      expect(done.find((e) => e.type === "user.approval_response").status).to.equal("processed");
      expect((await waiting()).map(([id]: string[]) => id)).to.not.include(sessionId);
    });

    it("a denial reaches the model as a tool result and the turn goes on", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      const { blocking } = await paused(sessionId);
      await approve(sessionId, blocking[0]!, undefined, "deny");
      const done = await settle(api, sessionId, 2);
      expect(done.some((e) => e.type === "agent.tool_use")).to.equal(false);
      const result = done.find((e) => e.type === "agent.tool_result");
      expect(result.payload).to.deep.include({ tool: "todo", status: "failed", is_error: true });
      expect(agentTexts(done)).to.deep.equal(["tool todo denied: the user denied the tool todo"]);
    });

    it("a denial's reason reaches the model in the denial", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      const { blocking } = await paused(sessionId);
      const res = await post(sessionId, { type: "user.approval_response", approval_id: blocking[0]!, result: "deny", reason: "not on a Friday" });
      expect(res.status).to.equal(202);
      const done = await settle(api, sessionId, 2);
      expect(done.find((e) => e.type === "user.approval_response").payload.reason).to.equal("not on a Friday");
      expect(agentTexts(done)).to.deep.equal(["tool todo denied: the user denied the tool todo: not on a Friday"]);
    });

    it("an answer nobody waits for is 409 no_active_turn, also for an approval already given", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      const { blocking } = await paused(sessionId);
      expect((await approve(sessionId, "evt_unknown")).status).to.equal(409);
      expect((await approve(sessionId, blocking[0]!)).status).to.equal(202);
      const again = await approve(sessionId, blocking[0]!);
      expect(again.status).to.equal(409);
      expect(again.body.error).to.equal("no_active_turn");
      await settle(api, sessionId, 2);
    });

    it("a prompt while waiting is 409 invalid_state; archive and delete are refused while waiting", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      await paused(sessionId);
      expect((await sendText(api, sessionId, "hello?")).body.error).to.equal("invalid_state");
      expect((await api.post(`/v1/sessions/${sessionId}/archive`)).status).to.equal(409);
      expect((await api.delete(`/v1/sessions/${sessionId}`)).status).to.equal(409);
      const queued = await sendText(api, sessionId, "later", "when_idle");
      expect(queued.body.data[0].status).to.equal("queued");
    });

    it("an interrupt while waiting ends the turn; the open request can no longer be answered", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      const { blocking } = await paused(sessionId);
      expect((await post(sessionId, { type: "user.interrupt" })).status).to.equal(202);
      const done = await settle(api, sessionId, 2);
      expect(done.at(-1).payload.stop_reason ?? done.filter((e) => e.type === "session.status_idle").at(-1).payload.stop_reason).to.deep.equal({
        type: "end_turn",
      });
      expect((await approve(sessionId, blocking[0]!)).body.error).to.equal("no_active_turn");
      // The conversation stays usable: the unanswered call is closed for the model.
      await sendText(api, sessionId, "still there?");
      expect(agentTexts(await settle(api, sessionId, 3)).at(-1)).to.equal("echo: still there?");
    });

    it("several requests in one turn: it resumes only when every one is answered", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, '/tool todo {}\n/tool memory {"action":"list"}');
      const { events, blocking } = await paused(sessionId);
      expect(events.filter((e) => e.type === "agent.approval_request")).to.have.length(2);
      expect(blocking).to.have.length(2);
      await approve(sessionId, blocking[0]!);
      const between = await history(api, sessionId);
      expect(between.filter((e) => e.type === "session.status_running")).to.have.length(1);
      expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("waiting_on_human");
      await approve(sessionId, blocking[1]!, undefined, "deny");
      const done = await settle(api, sessionId, 2);
      expect(agentTexts(done)).to.deep.equal(["tool todo result: The todo list is empty.\ntool memory denied: the user denied the tool memory"]);
    });
  });

  describe("policies", () => {
    it("always_allow runs without asking; always_deny and enabled:false deny without asking", async () => {
      const { sessionId } = await createSession(api, {
        agent: {
          tools: [
            toolset(ask, [
              { name: "todo", permissionPolicy: allow },
              { name: "memory", permissionPolicy: deny },
              { name: "file", enabled: false },
            ]),
          ],
        },
      });
      await sendText(api, sessionId, '/tool todo {}\n/tool memory {}\n/tool read_file {"path":"x"}');
      const done = await settle(api, sessionId, 1);
      expect(done.some((e) => e.type === "agent.approval_request")).to.equal(false);
      expect(agentTexts(done)).to.deep.equal([
        "tool todo result: The todo list is empty.\n" +
          "tool memory denied: the policy of the tool memory denies it\n" +
          "tool read_file denied: the tool read_file is disabled",
      ]);
      expect(done.filter((e) => e.type === "agent.tool_use").map((e) => e.payload.tool)).to.deep.equal(["todo"]);
    });

    it("a toolset default applies to tools without an override", async () => {
      const { sessionId } = await createSession(api, { agent: { tools: [toolset(allow)] } });
      await sendText(api, sessionId, "/tool skills_list {}");
      expect(agentTexts(await settle(api, sessionId, 1))).to.deep.equal(["tool skills_list result: This agent has no skills."]);
    });

    it("a tool no entry makes available is denied, never run", async () => {
      const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
      await sendText(api, sessionId, "/tool todo {}\n/tool nosuch {}");
      expect(agentTexts(await settle(api, sessionId, 1))).to.deep.equal([
        "tool todo denied: no tool named todo is available to this agent\ntool nosuch denied: no tool named nosuch is available to this agent",
      ]);
    });

    it("a role's tools replace the top-level tools; a session without a role uses the top-level ones", async () => {
      const agent = {
        tools: [lookup({ permissionPolicy: allow })],
        roles: [{ name: "restricted", tools: [lookup({ enabled: false })] }],
      };
      const withRole = await createSession(api, { agent, session: { role: "restricted" } });
      await sendText(api, withRole.sessionId, "/tool lookup {}");
      expect(agentTexts(await settle(api, withRole.sessionId, 1))).to.deep.equal(["tool lookup denied: the tool lookup is disabled"]);

      const without = await createSession(api, { agent });
      await sendText(api, without.sessionId, "/tool lookup {}");
      const { events } = await paused(without.sessionId);
      expect(events.some((e) => e.type === "agent.custom_tool_use")).to.equal(true);
    });

    it("MCP tools resolve through their toolset: per-tool override, then the default", async () => {
      const { sessionId } = await createSession(api, {
        agent: {
          mcpServers: [{ type: "url", name: "gh", url: "https://mcp.example.com/gh" }],
          tools: [
            {
              type: "mcp_toolset",
              mcpServerName: "gh",
              defaultConfig: { enabled: true, permissionPolicy: allow },
              configs: [{ name: "delete_repo", permissionPolicy: deny }],
            },
          ],
        },
      });
      await sendText(api, sessionId, "/tool mcp__gh__delete_repo {}\n/tool mcp__gh__list_issues {}\n/tool mcp__other__x {}");
      const done = await settle(api, sessionId, 1);
      const [text] = agentTexts(done);
      expect(text).to.include("tool mcp__gh__delete_repo denied: the policy of the tool mcp__gh__delete_repo denies it");
      expect(text).to.include("tool mcp__other__x denied: no tool named mcp__other__x is available");
      expect(done.filter((e) => e.type === "agent.mcp_tool_use").map((e) => e.payload.tool)).to.deep.equal(["mcp__gh__list_issues"]);
      expect(done.filter((e) => e.type === "agent.mcp_tool_result")).to.have.length(3);
    });
  });

  describe("yoloMode and approval scopes", () => {
    it("yoloMode approves always_ask without asking, but not always_deny or disabled tools", async () => {
      const { sessionId } = await createSession(api, {
        agent: { tools: [toolset(ask, [{ name: "memory", permissionPolicy: deny }])] },
        session: { yoloMode: true },
      });
      await sendText(api, sessionId, "/tool todo {}\n/tool memory {}");
      const done = await settle(api, sessionId, 1);
      expect(done.some((e) => e.type === "agent.approval_request")).to.equal(false);
      expect(agentTexts(done)).to.deep.equal(["tool todo result: The todo list is empty.\ntool memory denied: the policy of the tool memory denies it"]);
    });

    it("yoloMode is read at each decision: turned on mid-session, the next call is not asked", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      const { blocking } = await paused(sessionId);
      await approve(sessionId, blocking[0]!);
      await settle(api, sessionId, 2);
      expect((await api.post(`/v1/sessions/${sessionId}`, { yoloMode: true })).body.yoloMode).to.equal(true);
      await sendText(api, sessionId, "/tool todo {}");
      const done = await settle(api, sessionId, 3);
      expect(done.filter((e) => e.type === "agent.approval_request")).to.have.length(1);
    });

    it("scope once asks again next time; scope session does not, within the session only", async () => {
      const { agentId, sessionId, subjectId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      await approve(sessionId, (await paused(sessionId)).blocking[0]!, "once");
      await settle(api, sessionId, 2);
      await sendText(api, sessionId, "/tool todo {}");
      await approve(sessionId, (await paused(sessionId, 2)).blocking[0]!, "session");
      await settle(api, sessionId, 4);
      await sendText(api, sessionId, "/tool todo {}");
      const done = await settle(api, sessionId, 5);
      expect(done.filter((e) => e.type === "agent.approval_request")).to.have.length(2);

      const other = await api.post("/v1/sessions", { agentId, subjectId });
      await sendText(api, other.body.id, "/tool todo {}");
      await paused(other.body.id);
    });

    it("scope always is remembered for the agent and subject across sessions, not for other subjects", async () => {
      const { agentId, sessionId, subjectId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}");
      await approve(sessionId, (await paused(sessionId)).blocking[0]!, "always");
      await settle(api, sessionId, 2);

      const same = await api.post("/v1/sessions", { agentId, subjectId });
      await sendText(api, same.body.id, "/tool todo {}");
      const done = await settle(api, same.body.id, 1);
      expect(done.some((e) => e.type === "agent.approval_request")).to.equal(false);
      expect(agentTexts(done)).to.deep.equal(["tool todo result: The todo list is empty."]);

      const stranger = await api.post("/v1/sessions", { agentId, subjectId: `${subjectId}-other` });
      await sendText(api, stranger.body.id, "/tool todo {}");
      await paused(stranger.body.id);
    });
  });
});
