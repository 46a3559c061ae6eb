/** The custom tool kickoff: a custom call with no result (not even running) in time fails with a tool error, and the turn goes on. */
import { expect } from "chai";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, sendText, settle } from "./support/sessions.js";
import { allow, ask, lookup, sessionSteps } from "./tools-cases.js";

describe("custom tool kickoff", () => {
  let server: TestServer;
  let api: Client;
  const KICKOFF_MS = 700;

  before(async () => {
    server = await startServer({ CUSTOM_TOOL_KICKOFF_MS: String(KICKOFF_MS), SWEEP_INTERVAL_MS: "100" });
    api = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  const { post, paused, approve } = sessionSteps(() => api);

  it("a call that gets nothing in time fails with a tool error naming the tool; the paused turn resumes and ends", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
    await sendText(api, sessionId, "/tool lookup {}");
    const { events } = await paused(sessionId);
    const use = events.find((e) => e.type === "agent.custom_tool_use");
    const done = await settle(api, sessionId, 2);
    const result = done.find((e) => e.type === "agent.tool_result");
    expect(result.payload).to.deep.include({ tool_use_id: use.id, tool: "lookup", status: "failed", is_error: true });
    expect(result.payload.content[0].text).to.equal("The custom tool lookup reported no result (not even running) within 1 s; the turn goes on without it.");
    const types = done.map((e) => e.type).filter((t) => t !== "session.title_updated");
    expect(types.slice(-4)).to.deep.equal(["agent.tool_result", "session.status_running", "agent.message", "session.status_idle"]);
    expect(agentTexts(done)).to.deep.equal([`tool lookup result: ${result.payload.content[0].text}`]);
    expect(done.findLast((e) => e.type === "session.status_idle").payload.stop_reason).to.deep.equal({ type: "end_turn" });

    // The caller's result arriving after the kickoff no longer answers the call.
    const late = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "late" }], status: "running" });
    expect(late.status).to.equal(409);
  });

  it("a running result within the kickoff time resolves the call: nothing fails later", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
    await sendText(api, sessionId, "/tool lookup {}");
    const { events } = await paused(sessionId);
    const use = events.find((e) => e.type === "agent.custom_tool_use");
    await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "job started" }], status: "running" });
    expect(agentTexts(await settle(api, sessionId, 2))).to.deep.equal(["tool lookup result: job started"]);
    await new Promise((r) => setTimeout(r, KICKOFF_MS * 2));
    const after = await settle(api, sessionId, 2);
    expect(after.filter((e) => e.type === "agent.tool_result")).to.deep.equal([]);
    expect(after.filter((e) => e.type === "session.status_idle")).to.have.length(2);
  });

  it("the kickoff counts from agent.custom_tool_use, not from the approval request before it", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: ask })] } });
    await sendText(api, sessionId, "/tool lookup {}");
    const first = await paused(sessionId);
    await new Promise((r) => setTimeout(r, KICKOFF_MS * 2));
    const still = await paused(sessionId);
    expect(still.events.filter((e) => e.type === "agent.tool_result")).to.deep.equal([]);
    await approve(sessionId, first.events.find((e) => e.type === "agent.approval_request").id);
    const done = await settle(api, sessionId, 3);
    const use = done.find((e) => e.type === "agent.custom_tool_use");
    const result = done.find((e) => e.type === "agent.tool_result");
    expect(result.payload).to.deep.include({ tool_use_id: use.id, is_error: true });
    expect(Date.parse(result.createdAt) - Date.parse(use.createdAt)).to.be.at.least(KICKOFF_MS);
  });

  it("of two custom calls, only the unanswered one fails; the other's result stands", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
    await sendText(api, sessionId, '/tool lookup {"n":1}\n/tool lookup {"n":2}');
    const { events } = await paused(sessionId);
    const [one, two] = events.filter((e) => e.type === "agent.custom_tool_use");
    await post(sessionId, { type: "user.custom_tool_result", tool_use_id: one.id, content: [{ type: "text", text: "first done" }] });
    const done = await settle(api, sessionId, 2);
    const failed = done.find((e) => e.type === "agent.tool_result");
    expect(failed.payload.tool_use_id).to.equal(two.id);
    expect(agentTexts(done)).to.deep.equal([`tool lookup result: first done\ntool lookup result: ${failed.payload.content[0].text}`]);
  });
});
