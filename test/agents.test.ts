import { expect } from "chai";
import { expectError, expectValidation } from "./support/expect.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";
import { BUILTIN_TOOLSET, weather } from "./agents-cases.js";

describe("agents: create, read, replace, delete, archive, rate limits, versions", () => {
  let server: TestServer;
  let api: Client;

  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  /** A client for an organization of its own, for tests that look at whole lists. */
  async function freshOrg(): Promise<Client> {
    return client(server.url, await server.newKey());
  }

  async function create(c: Client = api, overrides: Record<string, unknown> = {}) {
    const res = await c.post("/v1/agents", agentBody(overrides));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }

  describe("POST /v1/agents", () => {
    it("returns 201 with the agent, its first version and the built-in toolset for tools: []", async () => {
      const res = await api.post("/v1/agents", agentBody({ metadata: { team: "support", tier: 2 } }));
      expect(res.status).to.equal(201);
      const a = res.body;
      expect(a.id).to.be.a("string");
      expect(a).to.include({ name: "Support bot", status: "active" });
      expect(a.metadata).to.deep.equal({ team: "support", tier: 2 });
      expect(Date.parse(a.createdAt)).to.not.be.NaN;
      expect(a.updatedAt).to.equal(a.createdAt);
      expect(a.tools).to.deep.equal([BUILTIN_TOOLSET]);
      expect(a.version).to.include({ version: 1, name: "Support bot", modelName: "mock/echo", systemPrompt: "You help." });
      expect(a.version.id).to.be.a("string");
      expect(a.version.tools).to.deep.equal([BUILTIN_TOOLSET]);
      expect(a.version).to.deep.include({ skills: [], roles: [], mcpServers: [], metadata: { team: "support", tier: 2 } });
    });

    it("rate limits default to 5 conversations and 100 messages per minute", async () => {
      const a = await create();
      expect(a.rateLimits).to.deep.equal({ conversationsPerMinute: 5, messagesPerMinute: 100 });
    });

    it("an omitted rate-limit field takes its default", async () => {
      const a = await create(api, { rateLimits: { conversationsPerMinute: 42 } });
      expect(a.rateLimits).to.deep.equal({ conversationsPerMinute: 42, messagesPerMinute: 100 });
      const b = await create(api, { rateLimits: { messagesPerMinute: 7 } });
      expect(b.rateLimits).to.deep.equal({ conversationsPerMinute: 5, messagesPerMinute: 7 });
    });

    it("tools that are given are stored with their defaults written out, and no built-in entry is added", async () => {
      const a = await create(api, {
        tools: [weather, { type: "agent_toolset", configs: [{ name: "web", enabled: false }] }],
        mcpServers: [{ type: "url", name: "docs", url: "https://mcp.example.com/sse" }],
        roles: [{ name: "reviewer", description: "Reads only", tools: [{ type: "mcp_toolset", mcpServerName: "docs" }] }],
      });
      expect(a.tools).to.deep.equal([
        { ...weather, enabled: true, permissionPolicy: { type: "always_ask" } },
        { type: "agent_toolset", defaultConfig: { enabled: true, permissionPolicy: { type: "always_ask" } }, configs: [{ name: "web", enabled: false }] },
      ]);
      expect(a.version.roles).to.deep.equal([
        {
          name: "reviewer",
          description: "Reads only",
          tools: [
            {
              type: "mcp_toolset",
              mcpServerName: "docs",
              defaultConfig: { enabled: true, permissionPolicy: { type: "always_ask" } },
              configs: [],
              resources: false,
              prompts: false,
            },
          ],
        },
      ]);
      expect(a.version.mcpServers).to.deep.equal([{ type: "url", name: "docs", url: "https://mcp.example.com/sse" }]);
    });

    it("returns skills as names only", async () => {
      const a = await create(api, {
        skills: [
          { name: "refunds", content: "# Refunds\nBe kind." },
          { name: "tone", content: "Short." },
        ],
      });
      expect(a.version.skills).to.deep.equal(["refunds", "tone"]);
    });
  });

  describe("skill content is stored but never returned", () => {
    it("appears in no response: create, get, list, replace, patch, archive, rate limits, versions list, version get", async () => {
      const c = await freshOrg();
      const marker = `SKILL-CONTENT-${Date.now()}`;
      const replies = [];
      const created = await c.post("/v1/agents", agentBody({ skills: [{ name: "kb", content: `${marker} one` }] }));
      replies.push(created);
      const id = created.body.id as string;
      replies.push(await c.get(`/v1/agents/${id}`));
      replies.push(await c.get("/v1/agents"));
      replies.push(await c.post(`/v1/agents/${id}`, agentBody({ skills: [{ name: "kb", content: `${marker} two` }] })));
      replies.push(await c.patch(`/v1/agents/${id}`, { skills: [{ name: "extra", content: `${marker} three` }] }));
      replies.push(await c.post(`/v1/agents/${id}/archive`));
      replies.push(await c.patch(`/v1/agents/${id}/rate-limits`, { messagesPerMinute: 9 }));
      replies.push(await c.get(`/v1/agents/${id}/versions`));
      for (const v of [1, 2, 3]) replies.push(await c.get(`/v1/agents/${id}/versions/${v}`));

      for (const r of replies) {
        expect(r.status, JSON.stringify(r.body)).to.be.oneOf([200, 201]);
        expect(JSON.stringify(r.body)).to.not.include(marker);
      }
      const versions = (await c.get(`/v1/agents/${id}/versions`)).body.data as { skills: unknown }[];
      expect(versions.map((v) => v.skills)).to.deep.equal([["kb", "extra"], ["kb"], ["kb"]]);
    });
  });

  describe("GET /v1/agents/{agentId}", () => {
    it("returns the agent with its latest version", async () => {
      const a = await create();
      await api.patch(`/v1/agents/${a.id}`, { systemPrompt: "Second." });
      const res = await api.get(`/v1/agents/${a.id}`);
      expect(res.status).to.equal(200);
      expect(res.body.id).to.equal(a.id);
      expect(res.body.version).to.include({ version: 2, systemPrompt: "Second." });
      expect(res.body.rateLimits).to.deep.equal({ conversationsPerMinute: 5, messagesPerMinute: 100 });
      expect(res.body.tools).to.deep.equal([BUILTIN_TOOLSET]);
    });

    it("an unknown agent is 404 not_found", async () => {
      expectError(await api.get("/v1/agents/agt_doesnotexist"), 404, "not_found");
    });
  });

  describe("GET /v1/agents", () => {
    it("lists newest first as {object: list, data, pagination: {limit, offset, hasMore}} with default limit 50", async () => {
      const c = await freshOrg();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await create(c, { name: `agent ${i}` })).id);
      const res = await c.get("/v1/agents");
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal("list");
      expect(res.body.pagination).to.deep.equal({ limit: 50, offset: 0, hasMore: false });
      expect(res.body.data.map((a: { id: string }) => a.id)).to.deep.equal([...ids].reverse());
      // List items are full agents, rate limits included.
      expect(res.body.data[0]).to.include.keys("id", "name", "status", "metadata", "rateLimits", "version", "tools", "createdAt", "updatedAt");
    });

    it("pages with limit and offset and says whether more follow", async () => {
      const c = await freshOrg();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create(c, { name: `agent ${i}` })).id);
      const newestFirst = [...ids].reverse();

      const first = await c.get("/v1/agents?limit=2");
      expect(first.body.data.map((a: { id: string }) => a.id)).to.deep.equal(newestFirst.slice(0, 2));
      expect(first.body.pagination).to.deep.equal({ limit: 2, offset: 0, hasMore: true });

      const middle = await c.get("/v1/agents?limit=2&offset=2");
      expect(middle.body.data.map((a: { id: string }) => a.id)).to.deep.equal(newestFirst.slice(2, 4));
      expect(middle.body.pagination).to.deep.equal({ limit: 2, offset: 2, hasMore: true });

      const last = await c.get("/v1/agents?limit=2&offset=4");
      expect(last.body.data.map((a: { id: string }) => a.id)).to.deep.equal(newestFirst.slice(4));
      expect(last.body.pagination).to.deep.equal({ limit: 2, offset: 4, hasMore: false });

      const past = await c.get("/v1/agents?offset=10");
      expect(past.body.data).to.deep.equal([]);
      expect(past.body.pagination.hasMore).to.equal(false);
    });

    it("returns at most 50 agents by default and at most 100 with limit=100", async () => {
      const c = await freshOrg();
      for (let i = 0; i < 101; i += 10) {
        await Promise.all(Array.from({ length: Math.min(10, 101 - i) }, (_, k) => create(c, { name: `bulk ${i + k}` })));
      }
      const byDefault = await c.get("/v1/agents");
      expect(byDefault.body.data).to.have.length(50);
      expect(byDefault.body.pagination).to.deep.equal({ limit: 50, offset: 0, hasMore: true });
      const max = await c.get("/v1/agents?limit=100");
      expect(max.body.data).to.have.length(100);
      expect(max.body.pagination).to.deep.equal({ limit: 100, offset: 0, hasMore: true });
      expectValidation(await c.get("/v1/agents?limit=101"), "limit: must be <= 100");
    });

    it("filters by status; without status it returns every status", async () => {
      const c = await freshOrg();
      const active = await create(c, { name: "stays" });
      const archived = await create(c, { name: "goes" });
      await c.post(`/v1/agents/${archived.id}/archive`);

      const ids = async (q: string) => (await c.get(`/v1/agents${q}`)).body.data.map((a: { id: string }) => a.id);
      expect(await ids("")).to.deep.equal([archived.id, active.id]);
      expect(await ids("?status=active")).to.deep.equal([active.id]);
      expect(await ids("?status=archived")).to.deep.equal([archived.id]);
    });
  });
});
