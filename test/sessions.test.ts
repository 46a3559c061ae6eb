import { expect } from "chai";
import { Redis } from "ioredis";
import { env } from "./support/hooks.js";
import { startServer, type Client, type TestServer } from "./support/server.js";
import {
  allEvents,
  completeTurn,
  createAgent,
  createSession,
  message,
  newSession,
  newSubject,
  newTenant,
  send,
  sendOk,
  waitForStatus,
} from "./support/api.js";

describe("sessions API", () => {
  let server: TestServer;
  let redis: Redis;
  before(async () => {
    server = await startServer();
    redis = new Redis(env.redisUrl);
  });
  after(async () => {
    redis.disconnect();
    await server.close();
  });

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
      for (const k of ["input", "output", "cache_read", "cache_write", "reasoning", "total", "calls", "context_used", "context_max", "context_percent", "last_turn_latency_ms", "latency_ms"]) {
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

  describe("update", () => {
    it("changes title, yoloMode and metadata; metadata replaces the whole object", async () => {
      const { api, session } = await newSession(server, { metadata: { a: "1", b: "2" } });
      const res = await api.post(`/v1/sessions/${session.id}`, { title: "Renamed", yoloMode: true, metadata: { c: true } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: session.id, title: "Renamed", yoloMode: true, status: "idle" });
      expect(res.body.metadata).to.deep.equal({ c: true });
      const got = (await api.get(`/v1/sessions/${session.id}`)).body;
      expect(got).to.include({ title: "Renamed", yoloMode: true });
      expect(got.metadata).to.deep.equal({ c: true });
      const only = await api.post(`/v1/sessions/${session.id}`, { yoloMode: false });
      expect(only.body).to.include({ title: "Renamed", yoloMode: false });
      expect(only.body.metadata).to.deep.equal({ c: true });
    });

    it("needs at least one field, and refuses unknown or ill-typed fields with 400", async () => {
      const { api, session } = await newSession(server);
      for (const body of [{}, { subjectId: "other" }, { title: "" }, { yoloMode: 1 }, { metadata: { k: [1] } }]) {
        const res = await api.post(`/v1/sessions/${session.id}`, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error).to.equal("validation_error");
      }
      expect((await api.get(`/v1/sessions/${session.id}`)).body.subjectId).to.equal(session.subjectId);
    });

    it("a caller's updated title is never overwritten by the generated title", async () => {
      const { api, session } = await newSession(server);
      expect((await api.post(`/v1/sessions/${session.id}`, { title: "Mine" })).status).to.equal(200);
      const done = await completeTurn(api, session.id, "hello there");
      expect(done.title).to.equal("Mine");
      const history = await allEvents(api, session.id);
      expect(history.map((e) => e.type)).to.include("session.status_idle");
      expect(history.filter((e) => e.type === "session.title_updated")).to.deep.equal([]);
    });

    it("a title given at creation is kept after the first turn, with no session.title_updated", async () => {
      const { api, session } = await newSession(server, { title: "Given" });
      const done = await completeTurn(api, session.id, "something else entirely");
      expect(done.title).to.equal("Given");
      expect((await allEvents(api, session.id)).map((e) => e.type)).to.not.include("session.title_updated");
    });

    it("without a title, the first turn persists one session.title_updated and sets the title", async () => {
      const { api, session } = await newSession(server);
      await completeTurn(api, session.id, "plan the release");
      await completeTurn(api, session.id, "and another thing");
      const got = (await api.get(`/v1/sessions/${session.id}`)).body;
      expect(got.title).to.be.a("string").and.not.empty;
      const titled = (await allEvents(api, session.id)).filter((e) => e.type === "session.title_updated");
      expect(titled).to.have.length(1);
      expect(titled[0].payload.title).to.equal(got.title);
    });
  });

  describe("archive", () => {
    it("archives an idle session, idempotently, and refuses events afterwards with 409 invalid_state", async () => {
      const { api, session } = await newSession(server);
      const first = await api.post(`/v1/sessions/${session.id}/archive`);
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ id: session.id, status: "archived" });
      const again = await api.post(`/v1/sessions/${session.id}/archive`);
      expect(again.status).to.equal(200);
      expect(again.body).to.include({ id: session.id, status: "archived" });
      expect((await api.get(`/v1/sessions/${session.id}`)).body.status).to.equal("archived");
      const res = await send(api, session.id, [message("hi")]);
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal("invalid_state");
      expect(await allEvents(api, session.id)).to.deep.equal([]);
    });

    it("refuses to archive or delete a running session with 409 invalid_state", async () => {
      const { api, session } = await newSession(server);
      await sendOk(api, session.id, [message("/slow 3000 x")]);
      expect((await api.get(`/v1/sessions/${session.id}`)).body.status).to.equal("running");
      const archived = await api.post(`/v1/sessions/${session.id}/archive`);
      expect(archived.status).to.equal(409);
      expect(archived.body.error).to.equal("invalid_state");
      const deleted = await api.delete(`/v1/sessions/${session.id}`);
      expect(deleted.status).to.equal(409);
      expect(deleted.body.error).to.equal("invalid_state");
      expect((await api.get(`/v1/sessions/${session.id}`)).status).to.equal(200);
      await waitForStatus(api, session.id, "idle");
    });

    it("the status filter follows a session from running back to idle", async () => {
      const { api, session } = await newSession(server);
      const ids = async (status: string) => ((await api.get(`/v1/sessions?status=${status}`)).body.data as { id: string }[]).map((s) => s.id);
      await sendOk(api, session.id, [message("/slow 1500 x")]);
      expect(await ids("running")).to.deep.equal([session.id]);
      expect(await ids("idle")).to.deep.equal([]);
      expect((await api.get("/v1/sessions")).body.data[0]).to.include({ id: session.id, status: "running" });
      await waitForStatus(api, session.id, "idle");
      expect(await ids("idle")).to.deep.equal([session.id]);
      expect(await ids("running")).to.deep.equal([]);
    });
  });

  describe("delete", () => {
    it("removes the record and every Redis key of its event log", async () => {
      const { api, session } = await newSession(server);
      await completeTurn(api, session.id);
      const sessionKeys = ["log", "seq", "live", "overlay", "state"].map((k) => `${env.redisKeyPrefix}:{${session.id}}:${k}`);
      expect(await redis.exists(`${env.redisKeyPrefix}:{${session.id}}:log`)).to.equal(1);
      const res = await api.delete(`/v1/sessions/${session.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ object: "agent.session_deleted", id: session.id, deleted: true });
      expect(await redis.exists(...sessionKeys)).to.equal(0);
      const got = await api.get(`/v1/sessions/${session.id}`);
      expect(got.status).to.equal(404);
      expect(got.body.error).to.equal("not_found");
      const events = await api.get(`/v1/sessions/${session.id}/events`);
      expect(events.status).to.equal(404);
      expect(events.body.error).to.equal("not_found");
      expect((await api.get(`/v1/sessions/${session.id}/events/stream`)).status).to.equal(404);
      expect((await send(api, session.id, [message("hi")])).status).to.equal(404);
      expect(await redis.exists(...sessionKeys)).to.equal(0);
      expect((await api.delete(`/v1/sessions/${session.id}`)).status).to.equal(404);
    });

    it("deletes an archived session", async () => {
      const { api, session } = await newSession(server);
      expect((await api.post(`/v1/sessions/${session.id}/archive`)).status).to.equal(200);
      expect((await api.delete(`/v1/sessions/${session.id}`)).status).to.equal(200);
      expect((await api.get(`/v1/sessions/${session.id}`)).status).to.equal(404);
      expect((await api.get("/v1/sessions?status=archived")).body.data).to.deep.equal([]);
    });

    it("an agent with sessions cannot be deleted (409 conflict); without them it can", async () => {
      const { api, agent, session } = await newSession(server);
      const refused = await api.delete(`/v1/agents/${agent.id}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal("conflict");
      expect((await api.delete(`/v1/sessions/${session.id}`)).status).to.equal(200);
      expect((await api.delete(`/v1/agents/${agent.id}`)).status).to.equal(200);
    });
  });

  describe("POST /v1/sandboxes/warm", () => {
    it("answers 202 with the prewarm result, repeatably, and creates no session", async () => {
      const api = await newTenant(server);
      const agent = await createAgent(api);
      const subjectId = newSubject();
      for (let i = 0; i < 2; i++) {
        const res = await api.post("/v1/sandboxes/warm", { agentId: agent.id, subjectId });
        expect(res.status).to.equal(202);
        expect(res.body).to.deep.equal({ object: "sandbox.warm", status: "warming", reason: null, agentId: agent.id, subjectId });
      }
      expect((await api.get("/v1/sessions")).body.data).to.deep.equal([]);
      expect((await api.get("/v1/sessions?status=archived")).body.data).to.deep.equal([]);
    });

    it("refuses an unknown agent with 404 and a bad body with 400", async () => {
      const api = await newTenant(server);
      const missing = await api.post("/v1/sandboxes/warm", { agentId: "agt_missing", subjectId: "s" });
      expect(missing.status).to.equal(404);
      expect(missing.body.error).to.equal("not_found");
      const agent = await createAgent(api);
      for (const body of [{ agentId: agent.id }, { subjectId: "s" }, { agentId: agent.id, subjectId: "s", extra: 1 }]) {
        const res = await api.post("/v1/sandboxes/warm", body);
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal("validation_error");
      }
    });
  });
});

describe("sessions across organizations", () => {
  let server: TestServer;
  let owner: Client;
  let other: Client;
  let agentId: string;
  let sessionId: string;
  before(async () => {
    server = await startServer();
    ({ api: owner, agent: { id: agentId }, session: { id: sessionId } } = await newSession(server));
    other = await newTenant(server);
  });
  after(async () => server.close());

  const expect404 = (res: { status: number; body: any }) => {
    expect(res.status).to.equal(404);
    expect(res.body.error).to.equal("not_found");
  };

  it("another organization's session is 404 on every sessions and events route", async () => {
    expect404(await other.get(`/v1/sessions/${sessionId}`));
    expect404(await other.post(`/v1/sessions/${sessionId}`, { title: "stolen" }));
    expect404(await other.post(`/v1/sessions/${sessionId}/archive`));
    expect404(await other.delete(`/v1/sessions/${sessionId}`));
    expect404(await send(other, sessionId, [message("hi")]));
    expect404(await other.get(`/v1/sessions/${sessionId}/events`));
    expect404(await other.get(`/v1/sessions/${sessionId}/events/stream`));
  });

  it("left the session untouched and out of the other organization's lists", async () => {
    const got = await owner.get(`/v1/sessions/${sessionId}`);
    expect(got.status).to.equal(200);
    expect(got.body).to.include({ status: "idle", title: null });
    expect((await owner.get(`/v1/sessions/${sessionId}/events`)).body.data).to.deep.equal([]);
    for (const query of ["", "?status=archived", `?agentId=${agentId}`]) {
      expect((await other.get(`/v1/sessions${query}`)).body.data).to.deep.equal([]);
    }
  });

  it("creating a session or prewarming for another organization's agent is 404", async () => {
    expect404(await other.post("/v1/sessions", { agentId, subjectId: newSubject() }));
    expect404(await other.post("/v1/sandboxes/warm", { agentId, subjectId: newSubject() }));
  });
});
