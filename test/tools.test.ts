import { expect } from "chai";
import { openSse } from "./support/sse.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

const ask = { type: "always_ask" };
const allow = { type: "always_allow" };
const deny = { type: "always_deny" };
const lookup = (extra: Record<string, unknown> = {}) => ({
  type: "custom_tool",
  name: "lookup",
  description: "Looks up an order",
  input_schema: { type: "object", properties: { order: { type: "string" } } },
  ...extra,
});
const toolset = (policy: Record<string, unknown>, configs: unknown[] = []) => ({ type: "agent_toolset", defaultConfig: { enabled: true, permissionPolicy: policy }, configs });

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

  const post = (sessionId: string, ...events: unknown[]) => api.post(`/v1/sessions/${sessionId}/events`, { events });
  /** Waits until the session pauses, and returns its blocking event ids with the history. */
  async function paused(sessionId: string, pauses = 1) {
    const events = await until(
      () => history(api, sessionId),
      (h) => h.filter((e) => e.type === "session.status_idle" && e.payload.stop_reason.type === "requires_action").length >= pauses,
      15_000,
      "the turn to pause",
    );
    const last = events.filter((e) => e.type === "session.status_idle").at(-1);
    return { events, blocking: last.payload.stop_reason.event_ids as string[] };
  }
  const approve = (sessionId: string, approvalId: string, scope?: string, result = "allow") =>
    post(sessionId, { type: "user.approval_response", approval_id: approvalId, result, ...(scope ? { scope } : {}) });

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
      expect(done.at(-1).payload.stop_reason ?? done.filter((e) => e.type === "session.status_idle").at(-1).payload.stop_reason).to.deep.equal({ type: "end_turn" });
      expect((await approve(sessionId, blocking[0]!)).body.error).to.equal("no_active_turn");
      // The conversation stays usable: the unanswered call is closed for the model.
      await sendText(api, sessionId, "still there?");
      expect(agentTexts(await settle(api, sessionId, 3)).at(-1)).to.equal("echo: still there?");
    });

    it("several requests in one turn: it resumes only when every one is answered", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/tool todo {}\n/tool memory {\"action\":\"list\"}");
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
        agent: { tools: [toolset(ask, [{ name: "todo", permissionPolicy: allow }, { name: "memory", permissionPolicy: deny }, { name: "file", enabled: false }])] },
      });
      await sendText(api, sessionId, "/tool todo {}\n/tool memory {}\n/tool read_file {\"path\":\"x\"}");
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
          tools: [{ type: "mcp_toolset", mcpServerName: "gh", defaultConfig: { enabled: true, permissionPolicy: allow }, configs: [{ name: "delete_repo", permissionPolicy: deny }] }],
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

  describe("custom tools", () => {
    it("always_ask: the approval request comes before agent.custom_tool_use; an immediate result resumes the turn", async () => {
      const { sessionId } = await createSession(api, { agent: { tools: [lookup()] } });
      await sendText(api, sessionId, '/tool lookup {"order":"A-1"}');
      const first = await paused(sessionId);
      const request = first.events.find((e) => e.type === "agent.approval_request");
      expect(first.events.some((e) => e.type === "agent.custom_tool_use")).to.equal(false);
      await approve(sessionId, request.id);
      const second = await paused(sessionId, 2);
      const use = second.events.find((e) => e.type === "agent.custom_tool_use");
      expect(use.payload).to.deep.equal({ type: "agent.custom_tool_use", id: request.payload.tool_use_id, tool: "lookup", input: { order: "A-1" } });
      expect(use.id).to.equal(use.payload.id);
      expect(second.blocking).to.deep.equal([use.id]);

      const res = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "shipped" }] });
      expect(res.status).to.equal(202);
      const done = await settle(api, sessionId, 3);
      expect(agentTexts(done)).to.deep.equal(["tool lookup result: shipped"]);
    });

    it("always_allow: agent.custom_tool_use at once, followed by requires_action naming it", async () => {
      const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
      await sendText(api, sessionId, "/tool lookup {}");
      const { events, blocking } = await paused(sessionId);
      expect(events.map((e) => e.type)).to.deep.equal(["user.message", "session.status_running", "agent.custom_tool_use", "session.status_idle"]);
      expect(blocking).to.deep.equal([events[2].id]);
      await post(sessionId, { type: "user.custom_tool_result", tool_use_id: events[2].id, content: [{ type: "text", text: "oops" }], is_error: true });
      expect(agentTexts(await settle(api, sessionId, 2))).to.deep.equal(["tool lookup result: oops"]);
    });

    it("long-running: running resolves the call; the final result replaces it, emits session.tool_updated and starts a turn", async () => {
      const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
      const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream?after=0`, key);
      await sendText(api, sessionId, "/tool lookup {}");
      const { events } = await paused(sessionId);
      const use = events.find((e) => e.type === "agent.custom_tool_use");
      const running = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "job started" }], status: "running" });
      const runningEvent = running.body.data[0];
      expect(agentTexts(await settle(api, sessionId, 2))).to.deep.equal(["tool lookup result: job started"]);

      const final = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "job done" }], status: "completed" });
      expect(final.status).to.equal(202);
      expect(final.body.data).to.have.length(1);
      expect(final.body.data[0]).to.include({ id: runningEvent.id, sequence: runningEvent.sequence });
      expect(final.body.data[0].payload).to.deep.include({ status: "completed", content: [{ type: "text", text: "job done" }] });

      const done = await settle(api, sessionId, 3);
      const replaced = done.find((e) => e.id === runningEvent.id);
      expect(replaced.payload.content[0].text).to.equal("job done");
      expect(replaced.turnId).to.equal(runningEvent.turnId);
      expect(done.filter((e) => e.type === "user.custom_tool_result")).to.have.length(1);
      expect(done.some((e) => e.type === "session.tool_updated")).to.equal(false);
      expect(done.filter((e) => e.type === "session.status_running")).to.have.length(3);
      expect(agentTexts(done).at(-1)).to.match(/^echo: A long-running tool call has finished/);

      await sse.waitFor((f) => f.some((x) => x.event === "session.tool_updated"));
      sse.close();
      const updated = sse.frames.find((f) => f.event === "session.tool_updated")!;
      expect(updated.data.sequence).to.equal(null);
      expect(updated.data.payload).to.deep.include({ tool_use_id: use.id, event_id: runningEvent.id });
      expect(updated.data.payload.payload.status).to.equal("completed");
    });

    it("a final result without a matching running one is appended and still starts a turn", async () => {
      const { sessionId } = await createSession(api);
      const res = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: "evt_external", content: [{ type: "text", text: "late news" }], status: "failed", is_error: true });
      expect(res.status).to.equal(202);
      const done = await settle(api, sessionId, 1);
      expect(done[0].type).to.equal("user.custom_tool_result");
      expect(agentTexts(done)).to.deep.equal(["echo: The tool call evt_external failed: late news"]);
    });

    it("a final result while a turn runs is 409 invalid_state; a running one nobody waits for is 409 no_active_turn", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/slow 1000 busy");
      const final = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: "evt_x", content: [{ type: "text", text: "x" }], status: "completed" });
      expect(final.status).to.equal(409);
      expect(final.body.error).to.equal("invalid_state");
      const runningResult = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: "evt_x", content: [{ type: "text", text: "x" }], status: "running" });
      expect(runningResult.body.error).to.equal("no_active_turn");
      await settle(api, sessionId, 1);
    });
  });

  describe("clarify", () => {
    it("asks with choices, waits, and the answer reaches the model", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/clarify Which color? | red | blue");
      const { events, blocking } = await paused(sessionId);
      const request = events.find((e) => e.type === "agent.clarify_request");
      expect(request.payload).to.deep.include({ request_id: request.id, question: "Which color?", choices: ["red", "blue"] });
      expect(blocking).to.deep.equal([request.id]);
      await post(sessionId, { type: "user.clarify_result", request_id: request.id, answer: "red" });
      expect(agentTexts(await settle(api, sessionId, 2))).to.deep.equal(["answer: red"]);
    });

    it("an open question has choices null; an empty answer skips it", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/clarify Anything else?");
      const { events } = await paused(sessionId);
      const request = events.find((e) => e.type === "agent.clarify_request");
      expect(request.payload.choices).to.equal(null);
      await post(sessionId, { type: "user.clarify_result", request_id: request.id, answer: "" });
      expect(agentTexts(await settle(api, sessionId, 2))).to.deep.equal(["answer: (skipped)"]);
    });

    it("a disabled clarify toolset denies the question", async () => {
      const { sessionId } = await createSession(api, { agent: { tools: [toolset(ask, [{ name: "clarify", enabled: false }])] } });
      await sendText(api, sessionId, "/clarify Really?");
      expect(agentTexts(await settle(api, sessionId, 1))).to.deep.equal(["tool clarify denied: the tool clarify is disabled"]);
    });
  });

  describe("built-in tools", () => {
    const open = { agent: { tools: [toolset(allow)] } };

    it("files live in the session's workspace, which a path cannot leave", async () => {
      const { sessionId } = await createSession(api, open);
      await sendText(api, sessionId, '/tool write_file {"path":"notes/a.txt","content":"hello"}\n/tool read_file {"path":"notes/a.txt"}\n/tool read_file {"path":"../../etc/passwd"}');
      expect(agentTexts(await settle(api, sessionId, 1))).to.deep.equal([
        "tool write_file result: Wrote 5 bytes to notes/a.txt.\ntool read_file result: hello\ntool read_file result: input.path must stay inside the session's workspace",
      ]);
    });

    it("terminal runs in the workspace without the service's environment", async () => {
      const { sessionId } = await createSession(api, open);
      await sendText(api, sessionId, '/tool terminal {"command":"echo hi; env"}');
      const [text] = agentTexts(await settle(api, sessionId, 1));
      expect(text).to.match(/^tool terminal result: hi\n/);
      for (const secret of ["MONGO_URL", "REDIS_URL", "ANTHROPIC", "REDIS_KEY_PREFIX"]) expect(text).to.not.include(secret);
    });

    it("memory persists for the agent and subject across sessions", async () => {
      const { agentId, sessionId, subjectId } = await createSession(api, open);
      await sendText(api, sessionId, '/tool memory {"action":"add","content":"prefers tea"}');
      await settle(api, sessionId, 1);
      const next = await api.post("/v1/sessions", { agentId, subjectId });
      await sendText(api, next.body.id, '/tool memory {"action":"list"}');
      expect(agentTexts(await settle(api, next.body.id, 1))[0]).to.match(/^tool memory result: mem_\w+: prefers tea$/);
    });

    it("skills are listed and read in full with skill_view", async () => {
      const { sessionId } = await createSession(api, { agent: { ...open.agent, skills: [{ name: "refunds", content: "# Refunds\nWithin 30 days." }] } });
      await sendText(api, sessionId, '/tool skills_list {}\n/tool skill_view {"name":"refunds"}');
      expect(agentTexts(await settle(api, sessionId, 1))).to.deep.equal(["tool skills_list result: - refunds\ntool skill_view result: # Refunds\nWithin 30 days."]);
    });

    it("web tools report that this deployment has no outbound network", async () => {
      const { sessionId } = await createSession(api, open);
      await sendText(api, sessionId, '/tool web_search {"query":"x"}');
      const done = await settle(api, sessionId, 1);
      expect(done.find((e) => e.type === "agent.tool_result").payload).to.include({ status: "failed", is_error: true });
    });
  });
});
