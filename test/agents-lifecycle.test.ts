/** Agents: full replace, delete, archive, rate limits and versions. */
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

  async function create(c: Client = api, overrides: Record<string, unknown> = {}) {
    const res = await c.post("/v1/agents", agentBody(overrides));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }

  describe("POST /v1/agents/{agentId} (full replace)", () => {
    it("always publishes a new version, even with an identical body", async () => {
      const a = await create();
      const res = await api.post(`/v1/agents/${a.id}`, agentBody());
      expect(res.status).to.equal(200);
      expect(res.body.version.version).to.equal(2);
      expect(res.body.version.id).to.not.equal(a.version.id);
      expect((await api.post(`/v1/agents/${a.id}`, agentBody())).body.version.version).to.equal(3);
    });

    it("removes skills, tools, roles, MCP servers and metadata the body leaves out", async () => {
      const a = await create(api, {
        skills: [
          { name: "one", content: "1" },
          { name: "two", content: "2" },
        ],
        tools: [weather],
        mcpServers: [{ type: "url", name: "docs", url: "https://mcp.example.com" }],
        roles: [{ name: "r", tools: [{ type: "mcp_toolset", mcpServerName: "docs" }] }],
        metadata: { a: "1" },
      });
      const res = await api.post(`/v1/agents/${a.id}`, agentBody({ name: "Renamed", skills: [{ name: "two", content: "2" }] }));
      expect(res.status).to.equal(200);
      expect(res.body.name).to.equal("Renamed");
      expect(res.body.version.skills).to.deep.equal(["two"]);
      expect(res.body.tools).to.deep.equal([BUILTIN_TOOLSET]);
      expect(res.body.version.roles).to.deep.equal([]);
      expect(res.body.version.mcpServers).to.deep.equal([]);
      expect(res.body.metadata).to.deep.equal({});
    });

    it("a body without rate limits sets them to their defaults, at once", async () => {
      const a = await create(api, { rateLimits: { conversationsPerMinute: 11, messagesPerMinute: 22 } });
      const res = await api.post(`/v1/agents/${a.id}`, agentBody());
      expect(res.body.rateLimits).to.deep.equal({ conversationsPerMinute: 5, messagesPerMinute: 100 });
      expect((await api.get(`/v1/agents/${a.id}`)).body.rateLimits).to.deep.equal({ conversationsPerMinute: 5, messagesPerMinute: 100 });
    });

    it("sets the rate limits as given; a field left out takes its default, whatever it was", async () => {
      const a = await create(api, { rateLimits: { conversationsPerMinute: 11, messagesPerMinute: 22 } });
      const res = await api.post(`/v1/agents/${a.id}`, agentBody({ rateLimits: { messagesPerMinute: 33 } }));
      expect(res.body.rateLimits).to.deep.equal({ conversationsPerMinute: 5, messagesPerMinute: 33 });
    });

    it("rate limits set by a full replace hold for the next send", async () => {
      const a = await create(api, { rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 } });
      const session = await api.post("/v1/sessions", { agentId: a.id, subjectId: `replace-limits-${Date.now()}` });
      const steer = { events: [{ type: "user.steer", message: "hi" }] };
      expect((await api.post(`/v1/sessions/${session.body.id}/events`, steer)).headers.get("ratelimit-limit")).to.equal("1000");
      await api.post(`/v1/agents/${a.id}`, agentBody({ rateLimits: { messagesPerMinute: 7 } }));
      expect((await api.post(`/v1/sessions/${session.body.id}/events`, steer)).headers.get("ratelimit-limit")).to.equal("7");
    });

    it("an unknown agent is 404 not_found", async () => {
      expectError(await api.post("/v1/agents/agt_doesnotexist", agentBody()), 404, "not_found");
    });
  });

  describe("DELETE /v1/agents/{agentId}", () => {
    it("returns {object: agent.deleted, id, deleted: true}; the agent and its versions are gone", async () => {
      const a = await create();
      await api.patch(`/v1/agents/${a.id}`, { name: "v2" });
      const res = await api.delete(`/v1/agents/${a.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ object: "agent.deleted", id: a.id, deleted: true });

      expectError(await api.get(`/v1/agents/${a.id}`), 404, "not_found");
      expectError(await api.get(`/v1/agents/${a.id}/versions`), 404, "not_found");
      expectError(await api.get(`/v1/agents/${a.id}/versions/1`), 404, "not_found");
      expectError(await api.patch(`/v1/agents/${a.id}`, { name: "back" }), 404, "not_found");
      expectError(await api.delete(`/v1/agents/${a.id}`), 404, "not_found");
      const listed = (await api.get("/v1/agents?limit=100")).body.data.map((x: { id: string }) => x.id);
      expect(listed).to.not.include(a.id);
    });
  });

  describe("POST /v1/agents/{agentId}/archive", () => {
    it("archives, and archiving again returns the agent unchanged", async () => {
      const a = await create();
      const first = await api.post(`/v1/agents/${a.id}/archive`);
      expect(first.status).to.equal(200);
      expect(first.body.status).to.equal("archived");
      expect(first.body.version.version).to.equal(1);
      const again = await api.post(`/v1/agents/${a.id}/archive`);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
      expect((await api.get(`/v1/agents/${a.id}`)).body.status).to.equal("archived");
    });

    it("an archived agent can still be updated and stays archived", async () => {
      const a = await create();
      await api.post(`/v1/agents/${a.id}/archive`);
      const res = await api.patch(`/v1/agents/${a.id}`, { systemPrompt: "Still editable." });
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal("archived");
      expect(res.body.version.version).to.equal(2);
    });

    it("an unknown agent is 404 not_found", async () => {
      expectError(await api.post("/v1/agents/agt_doesnotexist/archive"), 404, "not_found");
    });
  });

  describe("PATCH /v1/agents/{agentId}/rate-limits", () => {
    it("changes the limits without publishing a version", async () => {
      const a = await create();
      const res = await api.patch(`/v1/agents/${a.id}/rate-limits`, { conversationsPerMinute: 300, messagesPerMinute: 1000 });
      expect(res.status).to.equal(200);
      expect(res.body.rateLimits).to.deep.equal({ conversationsPerMinute: 300, messagesPerMinute: 1000 });
      expect(res.body.version).to.deep.equal(a.version);
      const versions = await api.get(`/v1/agents/${a.id}/versions`);
      expect(versions.body.data.map((v: { version: number }) => v.version)).to.deep.equal([1]);
      expect((await api.get(`/v1/agents/${a.id}`)).body.rateLimits).to.deep.equal({ conversationsPerMinute: 300, messagesPerMinute: 1000 });
    });

    it("an omitted field keeps its value", async () => {
      const a = await create(api, { rateLimits: { conversationsPerMinute: 8, messagesPerMinute: 80 } });
      const one = await api.patch(`/v1/agents/${a.id}/rate-limits`, { messagesPerMinute: 1 });
      expect(one.body.rateLimits).to.deep.equal({ conversationsPerMinute: 8, messagesPerMinute: 1 });
      const two = await api.patch(`/v1/agents/${a.id}/rate-limits`, { conversationsPerMinute: 1 });
      expect(two.body.rateLimits).to.deep.equal({ conversationsPerMinute: 1, messagesPerMinute: 1 });
    });

    it("needs at least one field", async () => {
      const a = await create();
      expectValidation(await api.patch(`/v1/agents/${a.id}/rate-limits`, {}), "body: must have at least 1 property");
    });

    it("an unknown agent is 404 not_found", async () => {
      expectError(await api.patch("/v1/agents/agt_doesnotexist/rate-limits", { messagesPerMinute: 5 }), 404, "not_found");
    });
  });

  describe("versions", () => {
    it("lists versions newest first, with limit and offset", async () => {
      const a = await create(api, { systemPrompt: "v1" });
      await api.patch(`/v1/agents/${a.id}`, { systemPrompt: "v2" });
      await api.post(`/v1/agents/${a.id}`, agentBody({ systemPrompt: "v3" }));

      const all = await api.get(`/v1/agents/${a.id}/versions`);
      expect(all.status).to.equal(200);
      expect(all.body.object).to.equal("list");
      expect(all.body.data.map((v: { version: number; systemPrompt: string }) => [v.version, v.systemPrompt])).to.deep.equal([
        [3, "v3"],
        [2, "v2"],
        [1, "v1"],
      ]);
      expect(all.body.pagination).to.deep.equal({ limit: 50, offset: 0, hasMore: false });

      const page = await api.get(`/v1/agents/${a.id}/versions?limit=1&offset=1`);
      expect(page.body.data.map((v: { version: number }) => v.version)).to.deep.equal([2]);
      expect(page.body.pagination).to.deep.equal({ limit: 1, offset: 1, hasMore: true });
    });

    it("gets a version by number; older versions are immutable", async () => {
      const a = await create(api, { systemPrompt: "first", metadata: { k: "v1" } });
      await api.patch(`/v1/agents/${a.id}`, { systemPrompt: "second", metadata: { k: "v2" }, skills: [{ name: "s", content: "c" }] });

      const v1 = await api.get(`/v1/agents/${a.id}/versions/1`);
      expect(v1.status).to.equal(200);
      expect(v1.body).to.deep.equal(a.version);
      const v2 = await api.get(`/v1/agents/${a.id}/versions/2`);
      expect(v2.body).to.include({ version: 2, systemPrompt: "second", name: "Support bot", modelName: "mock/echo" });
      expect(v2.body).to.deep.include({ skills: ["s"], metadata: { k: "v2" }, tools: [BUILTIN_TOOLSET], roles: [], mcpServers: [] });
      expect(v2.body).to.include.keys("id", "createdAt");
      // The version list carries the same objects as the single-version reads.
      const listed = (await api.get(`/v1/agents/${a.id}/versions`)).body.data;
      expect(listed).to.deep.equal([v2.body, v1.body]);
    });

    it("a version that does not exist is 404 not_found", async () => {
      const a = await create();
      expectError(await api.get(`/v1/agents/${a.id}/versions/2`), 404, "not_found");
    });

    it("a version that is not a positive integer is 400 validation_error", async () => {
      const a = await create();
      expectValidation(await api.get(`/v1/agents/${a.id}/versions/abc`), "version: must be integer");
      expectValidation(await api.get(`/v1/agents/${a.id}/versions/1.5`), "version: must be integer");
      expectValidation(await api.get(`/v1/agents/${a.id}/versions/0`), "version: must be >= 1");
    });

    it("versions of an unknown agent are 404 not_found", async () => {
      expectError(await api.get("/v1/agents/agt_doesnotexist/versions"), 404, "not_found");
      expectError(await api.get("/v1/agents/agt_doesnotexist/versions/1"), 404, "not_found");
    });
  });
});
