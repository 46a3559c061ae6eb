/** What the real Anthropic SDK inside the service sends for an agent with MCP servers: the servers' tools, and a note for one that is down. */
import { expect } from "chai";
import { useAnthropicService } from "./support/anthropic-service.js";
import { attach, mcpAgent, mcpToolset, sessionOf, vaultWith } from "./support/mcp-agents.js";
import { startBearerServer, type BearerServer } from "./support/mcp-servers.js";
import { secret } from "./support/secrets.js";
import { agentTexts, sendText, settle } from "./support/sessions.js";

describe("MCP tools offered to the Anthropic model", () => {
  const svc = useAnthropicService({ MCP_TIMEOUT_MS: "2000" });
  const token = secret();
  let tools: BearerServer;
  before(async () => {
    tools = await startBearerServer({ token });
  });
  after(async () => tools?.close());

  it("offers the enabled tools with their input schemas, runs the model's call, and names a server it could not list", async () => {
    const gone = await startBearerServer({ token });
    const goneUrl = gone.url;
    await gone.close();
    const toolset = mcpToolset("tools", undefined, { configs: [{ name: "slow", enabled: false }] });
    const agentId = await mcpAgent(
      svc.api,
      [
        { name: "tools", url: tools.url },
        { name: "gone", url: goneUrl },
      ],
      [toolset, mcpToolset("gone")],
      { modelName: "anthropic/claude-sonnet-4-6" },
    );
    await attach(svc.api, agentId, (await vaultWith(svc.api, { type: "static_bearer", mcpServerUrl: tools.url, token })).vaultId);
    const sessionId = await sessionOf(svc.api, agentId);
    svc.fake.push({ toolUses: [{ id: "toolu_1", name: "mcp__tools__add", input: { a: 20, b: 22 } }], stopReason: "tool_use" }, { text: "It is 42." });

    await sendText(svc.api, sessionId, "what is 20 + 22?");
    const events = await settle(svc.api, sessionId, 1);
    expect(agentTexts(events)).to.deep.equal(["It is 42."]);

    const [first, second] = svc.fake.requests.map((r) => r.body);
    const offered = first.tools.map((t: { name: string }) => t.name);
    expect(offered).to.have.members(["mcp__tools__echo", "mcp__tools__add", "mcp__tools__fail"]);
    const add = first.tools.find((t: { name: string }) => t.name === "mcp__tools__add");
    expect(add.description).to.equal("Adds two numbers");
    expect(add.input_schema.properties).to.have.keys("a", "b");
    expect(JSON.stringify(first.system)).to.match(/the tools of the MCP server gone are unavailable: the MCP server gone could not be used/);
    const result = second.messages.at(-1).content.find((b: { type: string }) => b.type === "tool_result");
    const use = second.messages.at(-2).content.find((b: { type: string }) => b.type === "tool_use");
    expect(use).to.deep.include({ name: "mcp__tools__add", input: { a: 20, b: 22 } });
    expect(result.tool_use_id).to.equal(use.id);
    expect(JSON.stringify(result.content)).to.include("42");
  });
});
