/** Tools: custom tools (approval, results, long-running calls), clarify and the built-in tools. */
import { expect } from "chai";
import { openSse } from "./support/sse.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, sendText, settle } from "./support/sessions.js";
import { allow, ask, lookup, sessionSteps, toolset } from "./tools-cases.js";

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
      const running = await post(sessionId, {
        type: "user.custom_tool_result",
        tool_use_id: use.id,
        content: [{ type: "text", text: "job started" }],
        status: "running",
      });
      const runningEvent = running.body.data[0];
      expect(agentTexts(await settle(api, sessionId, 2))).to.deep.equal(["tool lookup result: job started"]);

      const final = await post(sessionId, {
        type: "user.custom_tool_result",
        tool_use_id: use.id,
        content: [{ type: "text", text: "job done" }],
        status: "completed",
      });
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
      const res = await post(sessionId, {
        type: "user.custom_tool_result",
        tool_use_id: "evt_external",
        content: [{ type: "text", text: "late news" }],
        status: "failed",
        is_error: true,
      });
      expect(res.status).to.equal(202);
      const done = await settle(api, sessionId, 1);
      expect(done[0].type).to.equal("user.custom_tool_result");
      expect(agentTexts(done)).to.deep.equal(["echo: The tool call evt_external failed: late news"]);
    });

    it("a final result while a turn runs is 409 invalid_state; a running one nobody waits for is 409 no_active_turn", async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "/slow 1000 busy");
      const final = await post(sessionId, {
        type: "user.custom_tool_result",
        tool_use_id: "evt_x",
        content: [{ type: "text", text: "x" }],
        status: "completed",
      });
      expect(final.status).to.equal(409);
      expect(final.body.error).to.equal("invalid_state");
      const runningResult = await post(sessionId, {
        type: "user.custom_tool_result",
        tool_use_id: "evt_x",
        content: [{ type: "text", text: "x" }],
        status: "running",
      });
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
      await sendText(
        api,
        sessionId,
        '/tool write_file {"path":"notes/a.txt","content":"hello"}\n/tool read_file {"path":"notes/a.txt"}\n/tool read_file {"path":"../../etc/passwd"}',
      );
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

    it("an output longer than a text block is cut into blocks of at most 20,000 characters, and reaches the model whole", async () => {
      const { sessionId } = await createSession(api, open);
      await sendText(api, sessionId, `/tool terminal {"command":"head -c 30000 /dev/zero | tr '\\\\0' a"}`);
      const events = await settle(api, sessionId, 1);
      const result = events.find((e) => e.type === "agent.tool_result");
      expect(result.payload.content.map((b: { text: string }) => b.text.length)).to.deep.equal([20_000, 10_000]);
      const message = events.find((e) => e.type === "agent.message" && e.payload.delta === false);
      expect(message.payload.content.map((b: { text: string }) => b.text.length)).to.deep.equal([20_000, 10_022]);
      // The model's reply quotes the result it was given: one text, no separator where it was cut.
      expect(agentTexts(events)).to.deep.equal([`tool terminal result: ${"a".repeat(30_000)}`]);
    });

    it("session_search reads a long agent message as one text, across the cut between its blocks", async () => {
      const { agentId, sessionId, subjectId } = await createSession(api, open);
      // The echo is "echo: " and this text: its cut at 20,000 characters falls inside the needle.
      const spoken = `${"x".repeat(19_980)}needle-in-two-halves`;
      await sendText(api, sessionId, spoken);
      const [echo] = (await settle(api, sessionId, 1)).filter((e) => e.type === "agent.message" && e.payload.delta === false);
      expect(echo.payload.content.map((b: { text: string }) => b.text.slice(-7))).to.deep.equal(["in-two-", "halves"]);
      const next = await api.post("/v1/sessions", { agentId, subjectId });
      await sendText(api, next.body.id, '/tool session_search {"query":"in-two-halves"}');
      const [reply] = agentTexts(await settle(api, next.body.id, 1));
      // Both hold it: the user's message, and the echo once its blocks are joined with nothing between.
      const hits = reply.replace(/^tool session_search result: /, "").split("\n");
      expect(hits.map((hit) => hit.slice(hit.indexOf("] ") + 2, hit.indexOf("] ") + 8))).to.deep.equal(["xxxxxx", "echo: "]);
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
      expect(agentTexts(await settle(api, sessionId, 1))).to.deep.equal([
        "tool skills_list result: Skills of the agent (read-only):\n- refunds: Refunds\ntool skill_view result: [skill refunds of the agent, read-only]\n# Refunds\nWithin 30 days.",
      ]);
    });

    it("web_search without a configured backend is a clear tool error", async () => {
      const { sessionId } = await createSession(api, open);
      await sendText(api, sessionId, '/tool web_search {"query":"x"}');
      const done = await settle(api, sessionId, 1);
      expect(done.find((e) => e.type === "agent.tool_result").payload).to.deep.include({
        status: "failed",
        is_error: true,
        content: [{ type: "text", text: "web_search is not available: no search backend is configured (WEB_SEARCH_PROVIDER)" }],
      });
    });
  });
});
