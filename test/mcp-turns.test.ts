/** MCP tools in turns: offered, called with the vault's credential, approved like built-in tools, failing as results; resources and prompts. */
import { expect } from "chai";
import { attach, askAll, mcpAgent, mcpToolset, sessionOf, vaultWith } from "./support/mcp-agents.js";
import { FAIL_TEXT, startBearerServer, startEverythingServer, type BearerServer, type McpTestServer } from "./support/mcp-servers.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, sendText, settle } from "./support/sessions.js";
import { sessionSteps } from "./tools-cases.js";

describe("MCP tools in turns", () => {
  const token = secret();
  let tools: BearerServer;
  let everything: McpTestServer;
  let server: TestServer;
  let api: Client;
  before(async () => {
    [tools, everything] = await Promise.all([startBearerServer({ token }), startEverythingServer()]);
    server = await startServer({ MCP_TIMEOUT_MS: "1000" });
    api = client(server.url, await server.newKey());
  });
  after(async () => {
    await server?.close();
    await Promise.all([tools?.close(), everything?.close()]);
  });
  const { paused, approve } = sessionSteps(() => api);
  const bearer = () => ({ type: "static_bearer", mcpServerUrl: tools.url, token });

  /** An agent with the bearer server as `tools`, its vault attached, and a session of it. */
  async function toolsSession(toolset = mcpToolset("tools")) {
    const agentId = await mcpAgent(api, [{ name: "tools", url: tools.url }], [toolset]);
    await attach(api, agentId, (await vaultWith(api, bearer())).vaultId);
    return sessionOf(api, agentId);
  }

  it("a call runs on the server with the vault's bearer token, as agent.mcp_tool_use then agent.mcp_tool_result", async () => {
    const sessionId = await toolsSession();
    const before = tools.auth.accepted;
    await sendText(api, sessionId, '/tool mcp__tools__add {"a":2,"b":3}');
    const events = await settle(api, sessionId, 1);
    const use = events.find((e) => e.type === "agent.mcp_tool_use");
    expect(use.payload).to.deep.equal({ type: "agent.mcp_tool_use", id: use.id, tool: "mcp__tools__add", input: { a: 2, b: 3 }, status: "running" });
    const result = events.find((e) => e.type === "agent.mcp_tool_result");
    expect(result.payload).to.deep.include({
      tool_use_id: use.id,
      tool: "mcp__tools__add",
      status: "completed",
      is_error: false,
      content: [{ type: "text", text: "5" }],
    });
    expect(agentTexts(events)).to.deep.equal(["tool mcp__tools__add result: 5"]);
    expect(tools.auth.accepted).to.be.greaterThan(before);
    expect(tools.auth.headers.at(-1)).to.equal(`Bearer ${token}`);
  });

  it("the credential is resolved at each request: a rotated token is sent by the next call, an archived one no more", async () => {
    const agentId = await mcpAgent(api, [{ name: "tools", url: tools.url }]);
    const { vaultId, credentialIds } = await vaultWith(api, bearer());
    await attach(api, agentId, vaultId);
    const sessionId = await sessionOf(api, agentId);
    await sendText(api, sessionId, '/tool mcp__tools__echo {"text":"first"}');
    expect(agentTexts(await settle(api, sessionId, 1))).to.deep.equal(["tool mcp__tools__echo result: first"]);

    const rotated = secret();
    const patched = await api.patch(`/v1/vaults/${vaultId}/credentials/${credentialIds[0]}`, { auth: { type: "static_bearer", token: rotated } });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    await sendText(api, sessionId, '/tool mcp__tools__echo {"text":"second"}');
    const second = (await settle(api, sessionId, 2)).filter((e) => e.type === "agent.mcp_tool_result").at(-1);
    expect(second.payload.content[0].text).to.equal("the MCP server tools could not be used (HTTP 401)");
    expect(tools.auth.headers.at(-1)).to.equal(`Bearer ${rotated}`);

    await api.post(`/v1/vaults/${vaultId}/credentials/${credentialIds[0]}/archive`, {});
    await sendText(api, sessionId, '/tool mcp__tools__echo {"text":"third"}');
    await settle(api, sessionId, 3);
    expect(tools.auth.headers.at(-1), "no credential matches: the server is called as public").to.equal(undefined);
  });

  it("archiving the vault, or detaching it, stops its credential at the next call", async () => {
    const agentId = await mcpAgent(api, [{ name: "tools", url: tools.url }]);
    const { vaultId } = await vaultWith(api, bearer());
    await attach(api, agentId, vaultId);
    const sessionId = await sessionOf(api, agentId);
    const call = async (turns: number) => {
      await sendText(api, sessionId, '/tool mcp__tools__echo {"text":"x"}');
      await settle(api, sessionId, turns);
      return tools.auth.headers.at(-1);
    };
    expect(await call(1)).to.equal(`Bearer ${token}`);
    await attach(api, agentId);
    expect(await call(2), "detached").to.equal(undefined);
    await attach(api, agentId, vaultId);
    expect(await call(3)).to.equal(`Bearer ${token}`);
    expect((await api.post(`/v1/vaults/${vaultId}/archive`, {})).status).to.equal(200);
    expect(await call(4), "archived").to.equal(undefined);
  });

  it("always_ask: an approval request with tool_type mcp; allowed, the call runs; denied, it never reaches the server", async () => {
    const sessionId = await toolsSession(mcpToolset("tools", askAll));
    await sendText(api, sessionId, '/tool mcp__tools__echo {"text":"approved"}');
    const first = await paused(sessionId);
    const request = first.events.find((e) => e.type === "agent.approval_request");
    expect(request.payload).to.deep.include({ tool: "mcp__tools__echo", tool_type: "mcp", input: { text: "approved" } });
    expect(first.events.some((e) => e.type === "agent.mcp_tool_use")).to.equal(false);
    await approve(sessionId, request.id);
    expect(agentTexts(await settle(api, sessionId, 2))).to.deep.equal(["tool mcp__tools__echo result: approved"]);

    const seen = tools.auth.accepted;
    await sendText(api, sessionId, '/tool mcp__tools__echo {"text":"refused"}');
    const second = await paused(sessionId, 2);
    await approve(sessionId, second.blocking[0]!, undefined, "deny");
    const events = await settle(api, sessionId, 4);
    expect(agentTexts(events).at(-1)).to.match(/^tool mcp__tools__echo denied: /);
    expect(tools.auth.accepted - seen, "only the turn's listing reached the server, from cache or not").to.be.at.most(1);
  });

  it("per-tool overrides: a disabled tool is denied before it runs, always_deny likewise, without an approval", async () => {
    const toolset = mcpToolset("tools", askAll, {
      configs: [
        { name: "echo", enabled: false },
        { name: "add", permissionPolicy: { type: "always_deny" } },
      ],
    });
    const sessionId = await toolsSession(toolset);
    await sendText(api, sessionId, '/tool mcp__tools__echo {"text":"x"}\n/tool mcp__tools__add {"a":1,"b":1}');
    const events = await settle(api, sessionId, 1);
    expect(events.some((e) => e.type === "agent.approval_request" || e.type === "agent.mcp_tool_use")).to.equal(false);
    const results = events.filter((e) => e.type === "agent.mcp_tool_result").map((e) => e.payload.content[0].text);
    expect(results).to.deep.equal([
      "The tool call was denied: the tool mcp__tools__echo is disabled",
      "The tool call was denied: the policy of the tool mcp__tools__add denies it",
    ]);
  });

  it("a tool error, a server that is down and one that times out are error results, and the turn goes on", async () => {
    const gone = await startBearerServer({ token });
    const goneUrl = gone.url;
    await gone.close();
    const agentId = await mcpAgent(api, [
      { name: "tools", url: tools.url },
      { name: "gone", url: goneUrl },
    ]);
    await attach(api, agentId, (await vaultWith(api, bearer())).vaultId);
    const sessionId = await sessionOf(api, agentId);
    await sendText(api, sessionId, '/tool mcp__tools__fail {}\n/tool mcp__gone__echo {"text":"x"}\n/tool mcp__tools__slow {"ms":5000}');
    const events = await settle(api, sessionId, 1);
    const results = events.filter((e) => e.type === "agent.mcp_tool_result").map((e) => e.payload);
    expect(results.map((r) => [r.tool, r.is_error, r.status])).to.deep.equal([
      ["mcp__tools__fail", true, "failed"],
      ["mcp__gone__echo", true, "failed"],
      ["mcp__tools__slow", true, "failed"],
    ]);
    expect(results[0].content[0].text).to.equal(FAIL_TEXT);
    expect(results[1].content[0].text).to.match(/^the MCP server gone could not be used/);
    expect(results[2].content[0].text).to.equal("the MCP server tools did not answer in time");
    const idle = events.filter((e) => e.type === "session.status_idle").at(-1);
    expect(idle.payload.stop_reason.type).to.equal("end_turn");
  });

  it("two credentials matching one server: the call is an error result naming them, and nothing is sent", async () => {
    const agentId = await mcpAgent(api, [{ name: "tools", url: tools.url }]);
    const { vaultId, credentialIds } = await vaultWith(api, bearer(), { ...bearer(), mcpServerUrl: `${tools.url}/` });
    await attach(api, agentId, vaultId);
    const sessionId = await sessionOf(api, agentId);
    const seen = tools.auth.headers.length;
    await sendText(api, sessionId, '/tool mcp__tools__echo {"text":"x"}');
    const result = (await settle(api, sessionId, 1)).find((e) => e.type === "agent.mcp_tool_result");
    expect(result.payload.content[0].text).to.equal(
      `several credentials of the agent's vaults match the MCP server tools (${[...credentialIds].sort().join(", ")}); keep one`,
    );
    expect(tools.auth.headers.length).to.equal(seen);
  });

  it("resources and prompts, when the toolset enables them, through the reference server", async () => {
    const agentId = await mcpAgent(
      api,
      [{ name: "everything", url: everything.url }],
      [mcpToolset("everything", undefined, { resources: true, prompts: true })],
    );
    const sessionId = await sessionOf(api, agentId);
    await sendText(api, sessionId, "/tool mcp__everything__list_resources {}\n/tool mcp__everything__list_prompts {}");
    const listed = (await settle(api, sessionId, 1)).filter((e) => e.type === "agent.mcp_tool_result").map((e) => JSON.parse(e.payload.content[0].text));
    const resource = listed[0].resources[0];
    expect(resource.uri).to.be.a("string");
    expect(listed[1].prompts.map((p: { name: string }) => p.name)).to.include("simple-prompt");

    await sendText(
      api,
      sessionId,
      `/tool mcp__everything__read_resource ${JSON.stringify({ uri: resource.uri })}\n/tool mcp__everything__get_prompt {"name":"simple-prompt"}`,
    );
    const read = (await settle(api, sessionId, 2))
      .filter((e) => e.type === "agent.mcp_tool_result")
      .slice(2)
      .map((e) => e.payload);
    expect(read.map((r) => r.is_error)).to.deep.equal([false, false]);
    expect(read[0].content[0].text.length).to.be.greaterThan(0);
    expect(read[1].content[0].text).to.equal("user: This is a simple prompt without arguments.");
  });

  it("without resources enabled, list_resources is not a tool of the server", async () => {
    const agentId = await mcpAgent(api, [{ name: "everything", url: everything.url }]);
    const sessionId = await sessionOf(api, agentId);
    await sendText(api, sessionId, "/tool mcp__everything__list_resources {}");
    const result = (await settle(api, sessionId, 1)).find((e) => e.type === "agent.mcp_tool_result");
    expect(result.payload.is_error).to.equal(true);
    expect(result.payload.content[0].text).to.match(/list_resources/);
  });
});
