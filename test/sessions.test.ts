import { expect } from "chai";
import { startServer, type Client, type TestServer } from "./support/server.js";
import { completeTurn, createAgent, createSession, newSession, newSubject, newTenant } from "./support/api.js";

describe("sessions API", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => server.close());

  describe("create", () => {
    it("returns 201 with the session fields and defaults", async () => {
      const api = await newTenant(server);
      const agent = await createAgent(api);
      const subjectId = newSubject();
      const res = await api.post("/v1/sessions", { agentId: agent.id, subjectId, metadata: { ticket: "T-1", n: 2 } });
      expect(res.status).to.equal(201);
      const s = res.body;
      expect(s.id).to.be.a("string").and.not.empty;
      expect(s).to.include({ agentId: agent.id, subjectId, status: "idle", role: null, title: null, yoloMode: false, agentVersion: 1 });
      expect(s.metadata).to.deep.equal({ ticket: "T-1", n: 2 });
      expect(s).to.not.have.property("usage");
      expect(new Date(s.createdAt).toISOString()).to.equal(s.createdAt);
    });

    it("keeps a given title, yoloMode and role", async () => {
      const api = await newTenant(server);
      const agent = await createAgent(api, { roles: [{ name: "reviewer", tools: [] }] });
      const s = await createSession(api, agent.id, { title: "My chat", yoloMode: true, role: "reviewer" });
      expect(s).to.include({ title: "My chat", yoloMode: true, role: "reviewer" });
      const got = await api.get(`/v1/sessions/${s.id}`);
      expect(got.body).to.include({ title: "My chat", yoloMode: true, role: "reviewer" });
    });

    it("records the agent's latest version; an earlier session keeps its version", async () => {
      const api = await newTenant(server);
      const agent = await createAgent(api);
      const first = await createSession(api, agent.id);
      expect(first.agentVersion).to.equal(1);
      const patched = await api.patch(`/v1/agents/${agent.id}`, { systemPrompt: "Be brief." });
      expect(patched.status).to.equal(200);
      expect(patched.body.version.version).to.equal(2);
      const second = await createSession(api, agent.id);
      expect(second.agentVersion).to.equal(2);
      expect((await api.get(`/v1/sessions/${first.id}`)).body.agentVersion).to.equal(1);
      expect((await api.get(`/v1/sessions/${second.id}`)).body.agentVersion).to.equal(2);
    });

    it("refuses a role the latest version does not have with 400 validation_error", async () => {
      const api = await newTenant(server);
      const agent = await createAgent(api, { roles: [{ name: "reviewer", tools: [] }] });
      const res = await api.post("/v1/sessions", { agentId: agent.id, subjectId: newSubject(), role: "admin" });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal("validation_error");
      expect(res.body.message).to.match(/^role: /);
    });

    it("refuses a missing agent with 404 not_found", async () => {
      const api = await newTenant(server);
      const res = await api.post("/v1/sessions", { agentId: "agt_missing", subjectId: newSubject() });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal("not_found");
    });

    it("refuses an archived agent with 409 invalid_state", async () => {
      const api = await newTenant(server);
      const agent = await createAgent(api);
      expect((await api.post(`/v1/agents/${agent.id}/archive`)).status).to.equal(200);
      const res = await api.post("/v1/sessions", { agentId: agent.id, subjectId: newSubject() });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal("invalid_state");
    });

    describe("validates every body field", () => {
      let api: Client;
      let agentId: string;
      before(async () => {
        api = await newTenant(server);
        agentId = (await createAgent(api)).id;
      });
      const cases: [string, (agentId: string) => unknown, string][] = [
        ["missing agentId", () => ({ subjectId: "s" }), "agentId: is required"],
        ["missing subjectId", (a) => ({ agentId: a }), "subjectId: is required"],
        ["agentId not a string", () => ({ agentId: 5, subjectId: "s" }), "agentId: must be string"],
        ["agentId over 100 characters", () => ({ agentId: "a".repeat(101), subjectId: "s" }), "agentId: must be at most 100 characters"],
        ["role over 200 characters", (a) => ({ agentId: a, subjectId: "s", role: "r".repeat(201) }), "role: must be at most 200 characters"],
        ["subjectId not a string", (a) => ({ agentId: a, subjectId: 7 }), "subjectId: must be string"],
        ["empty subjectId", (a) => ({ agentId: a, subjectId: "" }), "subjectId: must not be empty"],
        ["subjectId over 200 characters", (a) => ({ agentId: a, subjectId: "s".repeat(201) }), "subjectId: must be at most 200 characters"],
        ["title over 200 characters", (a) => ({ agentId: a, subjectId: "s", title: "t".repeat(201) }), "title: must be at most 200 characters"],
        ["empty title", (a) => ({ agentId: a, subjectId: "s", title: "" }), "title: must not be empty"],
        ["role not a string", (a) => ({ agentId: a, subjectId: "s", role: 1 }), "role: must be string"],
        ["yoloMode not a boolean", (a) => ({ agentId: a, subjectId: "s", yoloMode: "yes" }), "yoloMode: must be boolean"],
        ["metadata not an object", (a) => ({ agentId: a, subjectId: "s", metadata: [] }), "metadata: must be object"],
        ["metadata with an object value", (a) => ({ agentId: a, subjectId: "s", metadata: { k: { x: 1 } } }), "metadata[*]: must be one of"],
        ["an unknown property", (a) => ({ agentId: a, subjectId: "s", status: "idle" }), "status: is not allowed"],
        ["a body that is not an object", () => [], "body: must be object"],
      ];
      for (const [name, body, expected] of cases) {
        it(`refuses ${name} with 400 validation_error`, async () => {
          const res = await api.post("/v1/sessions", body(agentId));
          expect(res.status).to.equal(400);
          expect(res.body.error).to.equal("validation_error");
          expect(res.body.message).to.contain(expected);
        });
      }

      it("names every failing path as `path: constraint`, joined by '; ', without echoing values", async () => {
        const res = await api.post("/v1/sessions", { title: "secret-title-value".repeat(20) });
        expect(res.status).to.equal(400);
        expect(res.body).to.deep.equal({
          error: "validation_error",
          message: "agentId: is required; subjectId: is required; title: must be at most 200 characters",
          requestId: res.headers.get("x-request-id"),
        });
      });

      it("creates nothing for a refused body", async () => {
        const res = await api.get(`/v1/sessions?agentId=${agentId}`);
        expect(res.body.data).to.deep.equal([]);
      });
    });
  });

  describe("list", () => {
    let api: Client;
    let agentA: string;
    let agentB: string;
    const ids: Record<string, string> = {};
    before(async () => {
      api = await newTenant(server);
      agentA = (await createAgent(api)).id;
      agentB = (await createAgent(api)).id;
      // Oldest first: a1 (alice), a2 (bob), b1 (alice), archived (alice, agent A)
      ids.a1 = (await api.post("/v1/sessions", { agentId: agentA, subjectId: "alice" })).body.id;
      ids.a2 = (await api.post("/v1/sessions", { agentId: agentA, subjectId: "bob" })).body.id;
      ids.b1 = (await api.post("/v1/sessions", { agentId: agentB, subjectId: "alice" })).body.id;
      ids.archived = (await api.post("/v1/sessions", { agentId: agentA, subjectId: "alice" })).body.id;
      expect((await api.post(`/v1/sessions/${ids.archived}/archive`)).status).to.equal(200);
    });
    const listIds = async (query: string) => {
      const res = await api.get(`/v1/sessions${query}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (res.body.data as { id: string }[]).map((s) => s.id);
    };

    it("returns {object: list, data, pagination} newest first, archived excluded by default, limit 50", async () => {
      const res = await api.get("/v1/sessions");
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal("list");
      expect(res.body.pagination).to.deep.equal({ limit: 50, offset: 0, hasMore: false });
      expect(res.body.data.map((s: { id: string }) => s.id)).to.deep.equal([ids.b1, ids.a2, ids.a1]);
      expect(res.body.data[0]).to.include({ agentId: agentB, subjectId: "alice", status: "idle" });
    });

    it("includes archived sessions with status=archived only", async () => {
      expect(await listIds("?status=archived")).to.deep.equal([ids.archived]);
      expect(await listIds("?status=idle")).to.deep.equal([ids.b1, ids.a2, ids.a1]);
      expect(await listIds("?status=running")).to.deep.equal([]);
    });

    it("filters by agentId and subjectId", async () => {
      expect(await listIds(`?agentId=${agentA}`)).to.deep.equal([ids.a2, ids.a1]);
      expect(await listIds("?subjectId=alice")).to.deep.equal([ids.b1, ids.a1]);
      expect(await listIds(`?agentId=${agentA}&subjectId=alice`)).to.deep.equal([ids.a1]);
    });

    it("accepts the aliases agent and subject", async () => {
      expect(await listIds(`?agent=${agentA}`)).to.deep.equal([ids.a2, ids.a1]);
      expect(await listIds("?subject=bob")).to.deep.equal([ids.a2]);
    });

    it("accepts an alias equal to its main parameter", async () => {
      expect(await listIds(`?agentId=${agentB}&agent=${agentB}`)).to.deep.equal([ids.b1]);
      expect(await listIds("?subjectId=bob&subject=bob")).to.deep.equal([ids.a2]);
    });

    it("refuses an alias that differs from its main parameter with 400", async () => {
      for (const query of [`?agentId=${agentA}&agent=${agentB}`, "?subjectId=alice&subject=bob"]) {
        const res = await api.get(`/v1/sessions${query}`);
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal("validation_error");
      }
    });

    it("refuses status=waiting_on_human and unknown statuses with 400", async () => {
      for (const status of ["waiting_on_human", "deleted"]) {
        const res = await api.get(`/v1/sessions?status=${status}`);
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal("validation_error");
      }
    });

    it("lists the sessions waiting on a human with waitingOnHuman=true, and refuses it with status or as false", async () => {
      expect(await listIds("?waitingOnHuman=true")).to.deep.equal([]);
      for (const query of ["?waitingOnHuman=false", "?waitingOnHuman=yes", "?waitingOnHuman=true&status=idle"]) {
        const res = await api.get(`/v1/sessions${query}`);
        expect(res.status, query).to.equal(400);
        expect(res.body.error).to.equal("validation_error");
        expect(res.body.message, query).to.match(/^waitingOnHuman: must (be true|not be given with status)/);
      }
    });

    it("pages with limit and offset", async () => {
      const first = await api.get("/v1/sessions?limit=2");
      expect(first.body.data.map((s: { id: string }) => s.id)).to.deep.equal([ids.b1, ids.a2]);
      expect(first.body.pagination).to.deep.equal({ limit: 2, offset: 0, hasMore: true });
      const second = await api.get("/v1/sessions?limit=2&offset=2");
      expect(second.body.data.map((s: { id: string }) => s.id)).to.deep.equal([ids.a1]);
      expect(second.body.pagination).to.deep.equal({ limit: 2, offset: 2, hasMore: false });
      expect(await listIds("?limit=100")).to.have.length(3);
      expect(await listIds("?limit=1")).to.have.length(1);
    });

    it("refuses limit outside 1..100 and a bad offset with 400", async () => {
      for (const query of ["?limit=0", "?limit=101", "?limit=x", "?offset=-1", "?offset=1.5", "?unknown=1"]) {
        const res = await api.get(`/v1/sessions${query}`);
        expect(res.status, query).to.equal(400);
        expect(res.body.error).to.equal("validation_error");
      }
    });
  });

  describe("get and usage", () => {
    it("has no usage before a turn and the usage snapshot after one completes", async () => {
      const { api, session } = await newSession(server);
      expect((await api.get(`/v1/sessions/${session.id}`)).body).to.not.have.property("usage");
      const done = await completeTurn(api, session.id);
      expect(done.usage).to.be.an("object");
      const u = done.usage;
      expect(u.model).to.equal("mock/echo");
      for (const k of [
        "input",
        "output",
        "cache_read",
        "cache_write",
        "reasoning",
        "total",
        "calls",
        "context_used",
        "context_max",
        "context_percent",
        "last_turn_latency_ms",
        "latency_ms",
      ]) {
        expect(u[k], k).to.be.a("number");
        expect(Number.isInteger(u[k]), k).to.equal(true);
      }
      expect(u.calls).to.equal(1);
      expect(u.output).to.be.greaterThan(0);
      expect(["estimated", "included", "unknown"]).to.include(u.cost_status);
    });

    it("a missing session is 404 not_found", async () => {
      const api = await newTenant(server);
      const res = await api.get("/v1/sessions/ses_missing");
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal("not_found");
    });
  });
});
