/** Sessions: update, archive, delete and sandbox prewarm, and sessions seen from another organization. */
import { expect } from "chai";
import type { RedisClient } from "../src/redis/client.js";
import { testKeys, testRedis } from "./support/redis.js";
import { startServer, type Client, type TestServer } from "./support/server.js";
import { allEvents, completeTurn, createAgent, message, newSession, newSubject, newTenant, send, sendOk, waitForStatus } from "./support/api.js";

describe("sessions API", () => {
  let server: TestServer;
  let redis: RedisClient;
  before(async () => {
    server = await startServer();
    redis = testRedis();
  });
  after(async () => {
    redis.disconnect();
    await server.close();
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
      const sessionKeys = testKeys().sessionKeys(session.id);
      expect(await redis.exists(testKeys().sessionLog(session.id))).to.equal(1);
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
    ({
      api: owner,
      agent: { id: agentId },
      session: { id: sessionId },
    } = await newSession(server));
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
