import { expect } from "chai";
import type { McpToolset } from "../../src/agents/domain/agent-config.js";
import { mcpToolOf, offeredMcpTools, readToolOf } from "../../src/vaults/domain/mcp-tools.js";
import { resolveTool } from "../../src/worker/domain/tool-permissions.js";
import { turnPrompt } from "../../src/worker/domain/turn-prompt.js";

const toolset = (name: string, extra: Partial<McpToolset> = {}): McpToolset => ({
  type: "mcp_toolset",
  mcpServerName: name,
  defaultConfig: { enabled: true, permissionPolicy: { type: "always_ask" } },
  configs: [],
  resources: false,
  prompts: false,
  ...extra,
});
const listed = (...names: string[]) => names.map((name) => ({ name, description: `${name} tool`, inputSchema: { type: "object" } }));

describe("MCP tools offered to the model (pure)", () => {
  it("names tools mcp__<server>__<tool>, leaves out disabled ones and names the API would refuse", () => {
    const set = toolset("gh", { configs: [{ name: "delete_repo", enabled: false }] });
    const { specs, skipped } = offeredMcpTools(set, listed("list_issues", "delete_repo", "files.read", "x".repeat(130)));
    expect(specs).to.deep.equal([{ name: "mcp__gh__list_issues", description: "list_issues tool", input_schema: { type: "object" } }]);
    expect(skipped).to.deep.equal(["files.read", "x".repeat(130)]);
  });

  it("a toolset disabled by default offers only the tools an override enables", () => {
    const set = toolset("gh", { defaultConfig: { enabled: false, permissionPolicy: { type: "always_allow" } }, configs: [{ name: "search", enabled: true }] });
    expect(offeredMcpTools(set, listed("search", "other")).specs.map((s) => s.name)).to.deep.equal(["mcp__gh__search"]);
  });

  it("read tools are offered when enabled, unless the server has a tool of the same name", () => {
    const set = toolset("docs", { resources: true, prompts: true });
    expect(offeredMcpTools(set, listed("search")).specs.map((s) => s.name)).to.deep.equal([
      "mcp__docs__search",
      "mcp__docs__list_resources",
      "mcp__docs__read_resource",
      "mcp__docs__list_prompts",
      "mcp__docs__get_prompt",
    ]);
    const shadowed = offeredMcpTools(set, listed("read_resource")).specs;
    expect(shadowed.filter((s) => s.name === "mcp__docs__read_resource")).to.have.length(1);
    expect(shadowed.find((s) => s.name === "mcp__docs__read_resource")!.description).to.equal("read_resource tool");
    expect(readToolOf(set, "read_resource", ["read_resource"])).to.equal(null);
    expect(readToolOf(set, "read_resource", [])).to.equal("read_resource");
    expect(readToolOf(toolset("docs", { prompts: true }), "list_resources", [])).to.equal(null);
    expect(offeredMcpTools(toolset("docs"), []).specs).to.deep.equal([]);
  });

  it("a name resolves to the longest configured server name it starts with, so server names may hold __", () => {
    const sets = [toolset("a"), toolset("a__b")];
    expect(mcpToolOf(sets, "mcp__a__b__tool")).to.deep.equal({ toolset: sets[1], tool: "tool" });
    expect(mcpToolOf(sets, "mcp__a__tool")).to.deep.equal({ toolset: sets[0], tool: "tool" });
    expect(mcpToolOf(sets, "mcp__a__")).to.equal(null);
    expect(mcpToolOf(sets, "mcp__c__tool")).to.equal(null);
    const resolved = resolveTool(
      [toolset("a"), toolset("a__b", { configs: [{ name: "tool", permissionPolicy: { type: "always_deny" } }] })],
      "mcp__a__b__tool",
    );
    expect(resolved).to.deep.include({ kind: "mcp", server: "a__b", policy: "always_deny" });
  });

  it("a name that would route to another server, or that a server lists twice, is left out", () => {
    const a = toolset("a");
    const ab = toolset("a__b");
    expect(offeredMcpTools(a, listed("b__c", "d", "d"), [a, ab])).to.deep.equal({
      specs: [{ name: "mcp__a__d", description: "d tool", input_schema: { type: "object" } }],
      skipped: ["b__c", "d"],
    });
    expect(offeredMcpTools(ab, listed("c"), [a, ab]).specs.map((t) => t.name)).to.deep.equal(["mcp__a__b__c"]);
  });

  it("the turn prompt offers each name once: built-in, then MCP, then custom", () => {
    const spec = (name: string, description: string) => ({ name, description, input_schema: { type: "object" } });
    const custom = {
      type: "custom_tool" as const,
      name: "mcp__gh__search",
      description: "custom",
      input_schema: { type: "object" },
      enabled: true,
      permissionPolicy: { type: "always_ask" as const },
    };
    const prompt = turnPrompt({ systemPrompt: "", skills: [] }, [custom], {
      specs: [spec("mcp__gh__search", "mcp"), spec("mcp__gh__x", "mcp")],
      unavailable: [],
    });
    expect(prompt.tools.map((t) => [t.name, t.description])).to.deep.equal([
      ["mcp__gh__search", "mcp"],
      ["mcp__gh__x", "mcp"],
    ]);
  });

  it("a built-in tool the deployment cannot run (web_search without a backend) is not offered", () => {
    const web = {
      type: "agent_toolset" as const,
      defaultConfig: { enabled: false, permissionPolicy: { type: "always_allow" as const } },
      configs: [{ name: "web" as const, enabled: true }],
    };
    expect(turnPrompt({ systemPrompt: "", skills: [] }, [web]).tools.map((t) => t.name)).to.deep.equal(["web_search", "web_extract"]);
    expect(turnPrompt({ systemPrompt: "", skills: [] }, [web], undefined, new Set(["web_search"])).tools.map((t) => t.name)).to.deep.equal(["web_extract"]);
  });

  it("the turn prompt lists MCP specs after built-in ones and names the servers that could not be listed", () => {
    const spec = { name: "mcp__gh__search", description: "search", input_schema: { type: "object" } };
    const prompt = turnPrompt({ systemPrompt: "You help.", skills: [] }, [], {
      specs: [spec],
      unavailable: ["the tools of the MCP server crm are unavailable: down"],
    });
    expect(prompt.tools).to.deep.equal([spec]);
    expect(prompt.system).to.equal("You help.\n\n## Unavailable tools\n- the tools of the MCP server crm are unavailable: down");
    expect(turnPrompt({ systemPrompt: "You help.", skills: [] }, []).system).to.equal("You help.");
  });
});
