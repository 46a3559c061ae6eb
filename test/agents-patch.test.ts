import { expect } from "chai";
import { expectError, expectValidation } from "./support/expect.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";

const policy = (type: string) => ({ permissionPolicy: { type } });
const defaults = { defaultConfig: { enabled: true, permissionPolicy: { type: "always_ask" } } };

function customTool(name: string, description = `The ${name} tool`) {
  return { type: "custom_tool", name, description, input_schema: { type: "object" } };
}
const storedCustomTool = (name: string, description = `The ${name} tool`) => ({
  ...customTool(name, description),
  enabled: true,
  ...policy("always_ask"),
});
const storedMcpToolset = (server: string, extra: Record<string, unknown> = {}) => ({
  type: "mcp_toolset",
  mcpServerName: server,
  ...defaults,
  configs: [],
  resources: false,
  prompts: false,
  ...extra,
});
const server = (name: string, url = `https://${name}.example.com/mcp`) => ({ type: "url", name, url });

describe("agents: PATCH /v1/agents/{agentId}", () => {
  let srv: TestServer;
  let api: Client;

  before(async () => {
    srv = await startServer();
    api = client(srv.url, await srv.newKey());
  });
  after(async () => srv.close());

  async function create(overrides: Record<string, unknown> = {}) {
    const res = await api.post("/v1/agents", agentBody(overrides));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }

  async function patch(id: string, body: Record<string, unknown>) {
    const res = await api.patch(`/v1/agents/${id}`, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }

  describe("rule 2: a new version; omitted configuration is kept", () => {
    it("publishes a new version and returns the full agent", async () => {
      const a = await create();
      const res = await api.patch(`/v1/agents/${a.id}`, { name: "Renamed" });
      expect(res.status).to.equal(200);
      expect(res.body.name).to.equal("Renamed");
      expect(res.body.version).to.include({ version: 2, name: "Renamed" });
      expect(res.body.version.id).to.not.equal(a.version.id);
      expect(res.body.rateLimits).to.deep.equal(a.rateLimits);
      expect(Date.parse(res.body.updatedAt)).to.be.at.least(Date.parse(a.updatedAt));
    });

    it("keeps every field the body leaves out", async () => {
      const a = await create({
        skills: [{ name: "s1", content: "one" }],
        tools: [customTool("lookup")],
        roles: [{ name: "r1", tools: [] }],
        mcpServers: [server("docs")],
        metadata: { owner: "ops" },
      });
      const after = await patch(a.id, { systemPrompt: "New prompt." });
      expect(after.version).to.include({ systemPrompt: "New prompt.", name: a.name, modelName: a.version.modelName });
      for (const field of ["skills", "tools", "roles", "mcpServers", "metadata"]) {
        expect(after.version[field], field).to.deep.equal(a.version[field]);
      }
    });

    it("metadata replaces the whole object", async () => {
      const a = await create({ metadata: { a: "1", b: "2" } });
      const after = await patch(a.id, { metadata: { c: "3" } });
      expect(after.metadata).to.deep.equal({ c: "3" });
      expect(after.version.metadata).to.deep.equal({ c: "3" });
    });
  });

  describe("rules 3 and 4: collections are upserted by identity", () => {
    it("skills by name: a known name is replaced in place, a new name is appended, the rest kept", async () => {
      const a = await create({
        skills: [
          { name: "a", content: "A" },
          { name: "b", content: "B" },
        ],
      });
      const after = await patch(a.id, {
        skills: [
          { name: "c", content: "C" },
          { name: "a", content: "A, revised" },
        ],
      });
      expect(after.version.skills).to.deep.equal(["a", "b", "c"]);
    });

    it("roles by name", async () => {
      const a = await create({
        roles: [
          { name: "r1", description: "first", tools: [] },
          { name: "r2", tools: [] },
        ],
      });
      const after = await patch(a.id, {
        roles: [
          { name: "r1", description: "changed", tools: [customTool("x")] },
          { name: "r3", tools: [] },
        ],
      });
      expect(after.version.roles).to.deep.equal([
        { name: "r1", description: "changed", tools: [storedCustomTool("x")] },
        { name: "r2", tools: [] },
        { name: "r3", tools: [] },
      ]);
    });

    it("mcpServers by name", async () => {
      const a = await create({ mcpServers: [server("one"), server("two")] });
      const after = await patch(a.id, { mcpServers: [server("two", "https://moved.example.com/mcp"), server("three")] });
      expect(after.version.mcpServers).to.deep.equal([server("one"), server("two", "https://moved.example.com/mcp"), server("three")]);
    });

    it("tools: custom tools by name, MCP toolsets by server, the built-in toolset by type", async () => {
      const a = await create({
        tools: [customTool("alpha"), { type: "agent_toolset" }, customTool("beta"), { type: "mcp_toolset", mcpServerName: "one" }],
        mcpServers: [server("one"), server("two")],
      });
      const after = await patch(a.id, {
        tools: [
          { ...customTool("beta", "Beta, revised"), ...policy("always_allow") },
          { type: "mcp_toolset", mcpServerName: "one", prompts: true },
          { type: "agent_toolset", defaultConfig: { enabled: false } },
          { type: "mcp_toolset", mcpServerName: "two" },
          customTool("gamma"),
        ],
      });
      expect(after.tools).to.deep.equal([
        storedCustomTool("alpha"),
        { type: "agent_toolset", defaultConfig: { enabled: false, permissionPolicy: { type: "always_ask" } }, configs: [] },
        { ...storedCustomTool("beta", "Beta, revised"), ...policy("always_allow") },
        storedMcpToolset("one", { prompts: true }),
        storedMcpToolset("two"),
        storedCustomTool("gamma"),
      ]);
      expect(after.version.tools).to.deep.equal(after.tools);
    });

    it("a custom tool and an MCP toolset never share an identity, even with equal names", async () => {
      const a = await create({ tools: [customTool("docs")], mcpServers: [server("docs")] });
      const after = await patch(a.id, { tools: [{ type: "mcp_toolset", mcpServerName: "docs" }] });
      expect(after.tools).to.deep.equal([storedCustomTool("docs"), storedMcpToolset("docs")]);
    });

    it("an empty collection removes nothing", async () => {
      const a = await create({
        skills: [{ name: "s", content: "c" }],
        tools: [customTool("t")],
        roles: [{ name: "r", tools: [] }],
        mcpServers: [server("m")],
      });
      const after = await patch(a.id, { skills: [], tools: [], roles: [], mcpServers: [] });
      expect(after.version.version).to.equal(2);
      for (const field of ["skills", "tools", "roles", "mcpServers"]) {
        expect(after.version[field], field).to.deep.equal(a.version[field]);
      }
    });
  });

  describe("the merged version keeps the bounds of a create body", () => {
    const full: [string, number, (i: number) => Record<string, unknown>][] = [
      ["skills", 100, (i) => ({ name: `s${i}`, content: "c" })],
      ["tools", 100, (i) => customTool(`t${i}`)],
      ["roles", 50, (i) => ({ name: `r${i}`, tools: [] })],
      ["mcpServers", 50, (i) => server(`m${i}`)],
    ];
    for (const [field, max, item] of full) {
      it(`${field}: adding one to an agent that has ${max} is 400; replacing one of them is accepted`, async () => {
        const a = await create({ [field]: Array.from({ length: max }, (_, i) => item(i)) });
        expectValidation(await api.patch(`/v1/agents/${a.id}`, { [field]: [item(max)] }), `${field}: must have at most ${max} items`);
        expect((await api.get(`/v1/agents/${a.id}`)).body.version.version).to.equal(1);
        const replaced = await patch(a.id, { [field]: [item(0)] });
        expect(replaced.version[field]).to.have.length(max);
      });
    }
  });

  describe("rule 1: at least one field other than expectedVersion", () => {
    it("an empty body is 400", async () => {
      const a = await create();
      expectValidation(await api.patch(`/v1/agents/${a.id}`, {}), "body: must have at least 1 property");
    });

    it("a body with only expectedVersion is 400", async () => {
      const a = await create();
      expectValidation(await api.patch(`/v1/agents/${a.id}`, { expectedVersion: 1 }), "body: must contain at least one field other than expectedVersion");
      expect((await api.get(`/v1/agents/${a.id}`)).body.version.version).to.equal(1);
    });
  });

  describe("rule 5: optimistic concurrency", () => {
    it("a matching expectedVersion is accepted", async () => {
      const a = await create();
      const after = await patch(a.id, { name: "n", expectedVersion: 1 });
      expect(after.version.version).to.equal(2);
      expect((await patch(a.id, { name: "m", expectedVersion: 2 })).version.version).to.equal(3);
    });

    it("a stale expectedVersion is 409 conflict naming both versions, and publishes nothing", async () => {
      const a = await create();
      await patch(a.id, { name: "v2" });
      await patch(a.id, { name: "v3" });
      const res = await api.patch(`/v1/agents/${a.id}`, { name: "lost", expectedVersion: 1 });
      expectError(res, 409, "conflict");
      expect(res.body.message).to.include("expectedVersion 1").and.include("version 3");
      const now = (await api.get(`/v1/agents/${a.id}`)).body;
      expect(now.name).to.equal("v3");
      expect(now.version.version).to.equal(3);
    });

    it("eight concurrent PATCHes lose no update: each is 200 or 409, and every accepted skill is kept", async () => {
      const a = await create({ skills: [{ name: "base", content: "base" }] });
      const names = Array.from({ length: 8 }, (_, i) => `skill-${i}`);
      const replies = await Promise.all(names.map((name) => api.patch(`/v1/agents/${a.id}`, { skills: [{ name, content: `content of ${name}` }] })));

      const accepted: { name: string; version: number; skills: string[] }[] = [];
      replies.forEach((res, i) => {
        if (res.status === 200) accepted.push({ name: names[i]!, version: res.body.version.version, skills: res.body.version.skills });
        else {
          expectError(res, 409, "conflict");
          expect(res.body.message).to.match(/version \d+/);
        }
      });
      expect(accepted.length).to.be.at.least(1);

      const final = (await api.get(`/v1/agents/${a.id}`)).body;
      expect(final.version.version).to.equal(1 + accepted.length);
      for (const { name } of accepted) expect(final.version.skills).to.include(name);
      // Refused PATCHes changed nothing.
      expect(final.version.skills).to.have.members(["base", ...accepted.map((x) => x.name)]);

      // Each accepted PATCH published its own version, built on the one before it.
      expect(accepted.map((x) => x.version).sort((p, q) => p - q)).to.deep.equal(accepted.map((_, i) => i + 2));
      const versions = (await api.get(`/v1/agents/${a.id}/versions`)).body.data as { version: number; skills: string[] }[];
      expect(versions.map((v) => v.version)).to.deep.equal(Array.from({ length: 1 + accepted.length }, (_, i) => accepted.length + 1 - i));
      for (const x of accepted) {
        const listed = versions.find((v) => v.version === x.version)!;
        expect(listed.skills).to.deep.equal(x.skills);
        expect(listed.skills).to.include(x.name);
      }
    });
  });

  describe("MCP references are checked on the merged configuration", () => {
    it("a toolset may name a server the agent already has", async () => {
      const a = await create({ mcpServers: [server("docs")] });
      const after = await patch(a.id, { tools: [{ type: "mcp_toolset", mcpServerName: "docs" }] });
      expect(after.tools).to.deep.include(storedMcpToolset("docs"));
    });

    it("a toolset may name a server added by the same PATCH", async () => {
      const a = await create();
      const after = await patch(a.id, {
        mcpServers: [server("fresh")],
        roles: [{ name: "r", tools: [{ type: "mcp_toolset", mcpServerName: "fresh" }] }],
      });
      expect(after.version.roles[0].tools).to.deep.equal([storedMcpToolset("fresh")]);
    });

    it("a top-level toolset naming a server in neither is 400, with the path of the submitted entry", async () => {
      const a = await create({ tools: [customTool("one"), customTool("two")], mcpServers: [server("docs")] });
      const res = await api.patch(`/v1/agents/${a.id}`, { tools: [{ type: "mcp_toolset", mcpServerName: "nowhere" }] });
      expectValidation(res, "tools[0].mcpServerName: must equal the name of an entry in mcpServers");
      expect((await api.get(`/v1/agents/${a.id}`)).body.version.version).to.equal(1);
    });

    it("a role's toolset naming an unknown server is 400, with the path of the submitted role", async () => {
      const a = await create({ roles: [{ name: "first", tools: [] }] });
      const res = await api.patch(`/v1/agents/${a.id}`, {
        roles: [{ name: "second", tools: [{ type: "agent_toolset" }, { type: "mcp_toolset", mcpServerName: "nowhere" }] }],
      });
      expectValidation(res, "roles[0].tools[1].mcpServerName: must equal the name of an entry in mcpServers");
    });
  });

  it("an unknown agent is 404 not_found", async () => {
    expectError(await api.patch("/v1/agents/agt_doesnotexist", { name: "x" }), 404, "not_found");
  });
});
