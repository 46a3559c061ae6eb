import { expect } from "chai";
import { hashKey } from "../src/accounts/store/organizations.js";
import { windowStart } from "../src/redis/fixed-window.js";
import { expectError, roomInWindow } from "./support/expect.js";
import { agentBody, client, startServer, type Client, type Reply, type TestServer } from "./support/server.js";

describe("authentication and organization scope", () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });
  after(async () => server.close());

  /** A new organization and a key for it, with the key's id (for revocation and the ceiling). */
  async function orgWithKey(requestsPerMinute?: number) {
    const orgs = server.core.stores.organizations;
    const orgId = await orgs.ensureOrganization(`auth-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    const { id, key } = await orgs.createKey(orgId, requestsPerMinute);
    return { orgId, keyId: id, key, api: client(server.url, key) };
  }

  describe("x-api-key", () => {
    it("a missing key is 401 unauthorized", async () => {
      const anon = client(server.url);
      expectError(await anon.get("/v1/agents"), 401, "unauthorized");
      expectError(await anon.post("/v1/agents", agentBody()), 401, "unauthorized");
      expectError(await anon.get("/v1/agents/agt_anything/versions/1"), 401, "unauthorized");
    });

    it("an invalid key is 401 unauthorized", async () => {
      expectError(await client(server.url, "ask_not-a-real-key").get("/v1/agents"), 401, "unauthorized");
      expectError(await client(server.url, "x".repeat(5000)).get("/v1/agents"), 401, "unauthorized");
    });

    it("a revoked key is 401 unauthorized; the organization's other keys keep working", async () => {
      const { orgId, keyId, api } = await orgWithKey();
      const other = client(server.url, (await server.core.stores.organizations.createKey(orgId)).key);
      expect((await api.get("/v1/agents")).status).to.equal(200);
      expect(await server.core.stores.organizations.revokeKey(keyId)).to.equal(true);
      expectError(await api.get("/v1/agents"), 401, "unauthorized");
      expect((await other.get("/v1/agents")).status).to.equal(200);
    });

    it("health, readiness and the OpenAPI document need no key", async () => {
      const anon = client(server.url);
      expect((await anon.get("/healthz")).status).to.equal(200);
      expect((await anon.get("/readyz")).status).to.equal(200);
      const doc = await anon.get("/v1/openapi.json");
      expect(doc.status).to.equal(200);
      expect(doc.body.openapi).to.equal("3.1.0");
      expect(doc.body.info.version).to.equal("1.0.0");
      expect(doc.body.paths).to.have.property("/v1/agents/{agentId}/versions/{version}");
    });

    it("keys are random, prefixed ask_, and stored only as SHA-256 hashes", async () => {
      const a = await orgWithKey();
      const b = await orgWithKey();
      expect(a.key).to.match(/^ask_[A-Za-z0-9_-]{43}$/);
      expect(a.key).to.not.equal(b.key);
      const stored = await server.core.connections.mongo.db.collection("api_keys").findOne({ _id: a.keyId as never });
      expect(stored).to.not.equal(null);
      expect(stored!.hash).to.equal(hashKey(a.key));
      expect(JSON.stringify(stored)).to.not.include(a.key);
      expect(JSON.stringify(stored)).to.not.include(a.key.slice(4));
    });
  });

  describe("another organization's agent is 404 not_found on every route", () => {
    let owner: Client;
    let stranger: Client;
    let agentId: string;

    before(async () => {
      owner = (await orgWithKey()).api;
      stranger = (await orgWithKey()).api;
      const created = await owner.post("/v1/agents", agentBody({ name: "Private", skills: [{ name: "s", content: "c" }] }));
      expect(created.status).to.equal(201);
      agentId = created.body.id;
    });

    const attempts: [string, (c: Client, id: string) => Promise<Reply<any>>][] = [
      ["GET /v1/agents/{id}", (c, id) => c.get(`/v1/agents/${id}`)],
      ["POST /v1/agents/{id} (full replace)", (c, id) => c.post(`/v1/agents/${id}`, agentBody({ name: "Taken" }))],
      ["PATCH /v1/agents/{id}", (c, id) => c.patch(`/v1/agents/${id}`, { name: "Taken" })],
      ["PATCH /v1/agents/{id} with expectedVersion", (c, id) => c.patch(`/v1/agents/${id}`, { name: "Taken", expectedVersion: 1 })],
      ["POST /v1/agents/{id}/archive", (c, id) => c.post(`/v1/agents/${id}/archive`)],
      ["PATCH /v1/agents/{id}/rate-limits", (c, id) => c.patch(`/v1/agents/${id}/rate-limits`, { messagesPerMinute: 1 })],
      ["GET /v1/agents/{id}/versions", (c, id) => c.get(`/v1/agents/${id}/versions`)],
      ["GET /v1/agents/{id}/versions/1", (c, id) => c.get(`/v1/agents/${id}/versions/1`)],
      ["DELETE /v1/agents/{id}", (c, id) => c.delete(`/v1/agents/${id}`)],
    ];
    for (const [route, attempt] of attempts) {
      it(route, async () => {
        const res = await attempt(stranger, agentId);
        expectError(res, 404, "not_found");
        // The same answer as for an agent that does not exist at all: nothing leaks.
        expect({ ...res.body, requestId: undefined }).to.deep.equal({ ...(await attempt(stranger, "agt_doesnotexist")).body, requestId: undefined });
      });
    }

    it("is absent from the other organization's list", async () => {
      const res = await stranger.get("/v1/agents?limit=100");
      expect(res.status).to.equal(200);
      expect(res.body.data.map((a: { id: string }) => a.id)).to.not.include(agentId);
      expect((await stranger.get("/v1/agents?status=active&limit=100")).body.data).to.deep.equal([]);
    });

    it("and the attempts changed nothing for its owner", async () => {
      const res = await owner.get(`/v1/agents/${agentId}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ name: "Private", status: "active" });
      expect(res.body.version.version).to.equal(1);
      expect(res.body.rateLimits).to.deep.equal({ conversationsPerMinute: 5, messagesPerMinute: 100 });
      expect((await owner.get("/v1/agents")).body.data.map((a: { id: string }) => a.id)).to.deep.equal([agentId]);
    });
  });

  describe("per-key request ceiling", () => {
    it("the request after the key's ceiling in one window is 429 rate_limited with Retry-After, RateLimit-* and no-store", async () => {
      const { api } = await orgWithKey(3);
      await roomInWindow();
      for (let i = 0; i < 3; i++) expect((await api.get("/v1/agents")).status).to.equal(200);
      const res = await api.get("/v1/agents");
      expectError(res, 429, "rate_limited");
      const retryAfter = Number(res.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).to.equal(true);
      expect(retryAfter).to.be.within(1, 60);
      expect(res.headers.get("ratelimit-limit")).to.equal("3");
      expect(res.headers.get("ratelimit-remaining")).to.equal("0");
      expect(Number(res.headers.get("ratelimit-reset"))).to.equal(retryAfter);
      expect(res.headers.get("cache-control")).to.equal("no-store");
    });

    it("counts every authenticated endpoint and is per key: another key of the same organization is unaffected", async () => {
      const { orgId, api } = await orgWithKey(2);
      await roomInWindow();
      expect((await api.post("/v1/agents", agentBody())).status).to.equal(201);
      expect((await api.get("/v1/agents/agt_doesnotexist")).status).to.equal(404);
      expectError(await api.get("/v1/agents"), 429, "rate_limited");
      const sibling = client(server.url, (await server.core.stores.organizations.createKey(orgId, 2)).key);
      expect((await sibling.get("/v1/agents")).status).to.equal(200);
    });

    it("a key created with the default allows 1,000 requests per minute", async () => {
      const { keyId, api } = await orgWithKey();
      await roomInWindow();
      // Stand in for 999 earlier requests of this window rather than sending them.
      await server.core.connections.redis.set(server.core.connections.keys.keyCeiling(keyId, windowStart()), "999", "PX", 60_000);
      expect((await api.get("/v1/agents")).status).to.equal(200);
      const res = await api.get("/v1/agents");
      expectError(res, 429, "rate_limited");
      expect(res.headers.get("ratelimit-limit")).to.equal("1000");
    });
  });
});
