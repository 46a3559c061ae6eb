import { expect } from "chai";
import { roomInWindow } from "./support/expect.js";
import { client, startServer, type Client, type Reply, type TestServer } from "./support/server.js";
import { allEvents, eventually, createAgent, createSession, message, newSubject, newTenant, remainingOf, send, steer, waitForStatus } from "./support/api.js";

/** The 429 contract: body with `rateLimit`, and its headers. */
function expectRateLimited(res: Reply<any>, resource: "conversations" | "messages", limit: number): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(429);
  expect(Object.keys(res.body).sort()).to.deep.equal(["error", "message", "rateLimit", "requestId"]);
  expect(res.body.error).to.equal("rate_limited");
  expect(res.body.message).to.be.a("string").and.not.empty;
  const rl = res.body.rateLimit;
  expect(Object.keys(rl).sort()).to.deep.equal(["limit", "periodSeconds", "remaining", "resetAfterSeconds", "resource"]);
  expect(rl).to.include({ resource, limit, periodSeconds: 60 });
  expect(rl.remaining).to.be.a("number").within(0, limit);
  expect(Number.isInteger(rl.resetAfterSeconds)).to.equal(true);
  expect(rl.resetAfterSeconds).to.be.within(1, 60);
  const retryAfter = res.headers.get("retry-after");
  expect(retryAfter).to.match(/^[1-9]\d*$/);
  expect(Number(retryAfter)).to.be.within(1, 60);
  expect(res.headers.get("ratelimit-limit")).to.equal(String(limit));
  expect(res.headers.get("ratelimit-remaining")).to.equal(String(rl.remaining));
  expect(res.headers.get("ratelimit-reset")).to.match(/^\d+$/);
  expect(res.headers.get("cache-control")).to.equal("no-store");
}

/** `RateLimit-*` headers of a limited successful request. */
function expectRateLimitHeaders(res: Reply<any>, limit: number, remaining: number): void {
  expect(res.headers.get("ratelimit-limit")).to.equal(String(limit));
  expect(res.headers.get("ratelimit-remaining")).to.equal(String(remaining));
  const reset = Number(res.headers.get("ratelimit-reset"));
  expect(Number.isInteger(reset)).to.equal(true);
  expect(reset).to.be.within(1, 60);
}

async function createFor(api: Client, agentId: string, subjectId: string, extra: Record<string, unknown> = {}) {
  return api.post("/v1/sessions", { agentId, subjectId, ...extra });
}

describe("allowances", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => server.close());

  describe("conversations", () => {
    it("20 concurrent creates against a limit of 5 create exactly 5; the others are 429", async () => {
      await roomInWindow(5_000);
      const api = await newTenant(server);
      const agent = await createAgent(api);
      expect(agent.rateLimits.conversationsPerMinute).to.equal(5);
      const subjectId = newSubject();
      const replies = await Promise.all(Array.from({ length: 20 }, () => createFor(api, agent.id, subjectId)));
      const created = replies.filter((r) => r.status === 201);
      expect(created).to.have.length(5);
      for (const r of replies.filter((r) => r.status !== 201)) expectRateLimited(r, "conversations", 5);
      expect(created.map((r) => r.headers.get("ratelimit-remaining")).sort()).to.deep.equal(["0", "1", "2", "3", "4"]);
      const listed = await api.get(`/v1/sessions?subjectId=${subjectId}`);
      expect(listed.body.data.map((s: any) => s.id).sort()).to.deep.equal(created.map((r) => r.body.id).sort());
    });

    it("successful creates carry RateLimit-*; the one over the limit gets the 429 contract and creates nothing", async () => {
      await roomInWindow(5_000);
      const api = await newTenant(server);
      const agent = await createAgent(api, { rateLimits: { conversationsPerMinute: 2 } });
      const subjectId = newSubject();
      expectRateLimitHeaders(await createFor(api, agent.id, subjectId), 2, 1);
      expectRateLimitHeaders(await createFor(api, agent.id, subjectId), 2, 0);
      const refused = await createFor(api, agent.id, subjectId);
      expectRateLimited(refused, "conversations", 2);
      expect(refused.body.rateLimit.remaining).to.equal(0);
      expect(Number(refused.headers.get("retry-after"))).to.equal(refused.body.rateLimit.resetAfterSeconds);
      expect((await api.get(`/v1/sessions?subjectId=${subjectId}`)).body.data).to.have.length(2);
    });

    it("refused creates (validation, unknown role, missing or archived agent) do not count", async () => {
      await roomInWindow(5_000);
      const api = await newTenant(server);
      const agent = await createAgent(api, { rateLimits: { conversationsPerMinute: 2 } });
      const archived = await createAgent(api, { rateLimits: { conversationsPerMinute: 2 } });
      await api.post(`/v1/agents/${archived.id}/archive`);
      const subjectId = newSubject();
      expect((await createFor(api, agent.id, subjectId, { role: "nope" })).status).to.equal(400);
      expect((await createFor(api, agent.id, subjectId, { yoloMode: "yes" })).status).to.equal(400);
      expect((await createFor(api, "agt_missing", subjectId)).status).to.equal(404);
      expect((await createFor(api, archived.id, subjectId)).status).to.equal(409);
      expectRateLimitHeaders(await createFor(api, agent.id, subjectId), 2, 1);
    });

    it("different subjects, agents and organizations count independently", async () => {
      await roomInWindow(5_000);
      const api = await newTenant(server);
      const a = await createAgent(api, { rateLimits: { conversationsPerMinute: 1 } });
      const b = await createAgent(api, { rateLimits: { conversationsPerMinute: 1 } });
      const otherOrg = await newTenant(server);
      const c = await createAgent(otherOrg, { rateLimits: { conversationsPerMinute: 1 } });
      const subjectId = newSubject();
      expect((await createFor(api, a.id, subjectId)).status).to.equal(201);
      expectRateLimited(await createFor(api, a.id, subjectId), "conversations", 1);
      expect((await createFor(api, a.id, newSubject())).status).to.equal(201);
      expect((await createFor(api, b.id, subjectId)).status).to.equal(201);
      expect((await createFor(otherOrg, c.id, subjectId)).status).to.equal(201);
    });

    it("two keys of one organization share one counter", async () => {
      await roomInWindow(5_000);
      const orgId = await server.core.stores.organizations.ensureOrganization(newSubject("org"));
      const first = client(server.url, (await server.core.stores.organizations.createKey(orgId)).key);
      const second = client(server.url, (await server.core.stores.organizations.createKey(orgId)).key);
      const agent = await createAgent(first, { rateLimits: { conversationsPerMinute: 2 } });
      const subjectId = newSubject();
      expectRateLimitHeaders(await createFor(first, agent.id, subjectId), 2, 1);
      expectRateLimitHeaders(await createFor(second, agent.id, subjectId), 2, 0);
      expectRateLimited(await createFor(first, agent.id, subjectId), "conversations", 2);
      expectRateLimited(await createFor(second, agent.id, subjectId), "conversations", 2);
    });

    it("a rate-limit PATCH applies at once, lowering and raising the limit mid-window", async () => {
      await roomInWindow(5_000);
      const api = await newTenant(server);
      const agent = await createAgent(api);
      const subjectId = newSubject();
      expectRateLimitHeaders(await createFor(api, agent.id, subjectId), 5, 4);
      expectRateLimitHeaders(await createFor(api, agent.id, subjectId), 5, 3);
      const lowered = await api.patch(`/v1/agents/${agent.id}/rate-limits`, { conversationsPerMinute: 2 });
      expect(lowered.status).to.equal(200);
      expect(lowered.body.rateLimits.conversationsPerMinute).to.equal(2);
      const refused = await createFor(api, agent.id, subjectId);
      expectRateLimited(refused, "conversations", 2);
      expect(refused.body.rateLimit.remaining).to.equal(0);
      expect((await api.patch(`/v1/agents/${agent.id}/rate-limits`, { conversationsPerMinute: 10 })).status).to.equal(200);
      expectRateLimitHeaders(await createFor(api, agent.id, subjectId), 10, 7);
    });
  });

  describe("messages", () => {
    /** A tenant, an agent with `messagesPerMinute`, and a session for a fresh subject. */
    async function limited(messagesPerMinute: number) {
      const api = await newTenant(server);
      const agent = await createAgent(api, { rateLimits: { messagesPerMinute } });
      const session = await createSession(api, agent.id);
      return { api, agent, session };
    }

    it("every event of a batch counts one point; a batch over the limit is refused whole and not persisted", async () => {
      await roomInWindow(5_000);
      const { api, session } = await limited(5);
      const first = await send(api, session.id, [steer("a"), steer("b"), steer("c")]);
      expect(first.status).to.equal(202);
      expectRateLimitHeaders(first, 5, 2);
      const second = await send(api, session.id, [steer("d"), steer("e"), steer("f")]);
      expectRateLimited(second, "messages", 5);
      expect(second.body.rateLimit.remaining).to.equal(2);
      expect((await allEvents(api, session.id)).map((e) => e.payload.message)).to.deep.equal(["a", "b", "c"]);
      const third = await send(api, session.id, [steer("g"), steer("h")]);
      expect(third.status).to.equal(202);
      expectRateLimitHeaders(third, 5, 0);
      expectRateLimited(await send(api, session.id, [{ type: "user.interrupt" }]), "messages", 5);
    });

    it("a refused user.message starts no turn", async () => {
      await roomInWindow(5_000);
      const { api, session } = await limited(1);
      expect((await send(api, session.id, [steer("a")])).status).to.equal(202);
      expectRateLimited(await send(api, session.id, [message("hi")]), "messages", 1);
      const got = await api.get(`/v1/sessions/${session.id}`);
      expect(got.body.status).to.equal("idle");
      expect((await allEvents(api, session.id)).map((e) => e.type)).to.deep.equal(["user.steer"]);
    });

    it("refused events (validation, missing or archived session, prompt conflict) do not count", async () => {
      await roomInWindow(5_000);
      const { api, agent, session } = await limited(3);
      // A second session of the same agent and subject shares the counter; it gets archived.
      const archived = await createSession(api, agent.id, { subjectId: session.subjectId });
      expect((await api.post(`/v1/sessions/${archived.id}/archive`)).status).to.equal(200);
      expect((await send(api, archived.id, [steer("x")])).status).to.equal(409);
      expect((await send(api, session.id, [steer("")])).status).to.equal(400);
      expect((await send(api, "ses_missing", [steer("x")])).status).to.equal(404);
      const started = await send(api, session.id, [message("/slow 1000 x")]);
      expectRateLimitHeaders(started, 3, 2);
      const conflict = await send(api, session.id, [message("again")]);
      expect(conflict.status).to.equal(409);
      expect(conflict.body.error).to.equal("invalid_state");
      expectRateLimitHeaders(await send(api, session.id, [steer("y")]), 3, 1);
      await waitForStatus(api, session.id, "idle");
    });

    it("a when_idle prompt counts when it is queued, not again when it drains", async () => {
      await roomInWindow(5_000);
      const { api, session } = await limited(3);
      expectRateLimitHeaders(await send(api, session.id, [message("/slow 500 first")]), 3, 2);
      const queued = await send(api, session.id, [message("second")], { delivery: "when_idle" });
      expect(queued.status).to.equal(202);
      expect(queued.body.data[0].status).to.equal("queued");
      expectRateLimitHeaders(queued, 3, 1);
      // Both turns end: the running one, then the queued prompt's own.
      await eventually("both turns to end", async () => {
        const ended = (await allEvents(api, session.id)).filter((e) => e.type === "session.status_idle");
        return ended.length === 2 ? true : undefined;
      });
      await waitForStatus(api, session.id, "idle");
      const afterDrain = await send(api, session.id, [{ type: "user.interrupt" }]);
      expect(afterDrain.status).to.equal(202);
      expectRateLimitHeaders(afterDrain, 3, 0);
    });

    it("different subjects, agents and organizations count independently; the subject is the stored session's", async () => {
      await roomInWindow(5_000);
      const api = await newTenant(server);
      const a = await createAgent(api, { rateLimits: { messagesPerMinute: 1 } });
      const b = await createAgent(api, { rateLimits: { messagesPerMinute: 1 } });
      const alice = newSubject("alice");
      const aliceA1 = await createSession(api, a.id, { subjectId: alice });
      const aliceA2 = await createSession(api, a.id, { subjectId: alice });
      const bobA = await createSession(api, a.id, { subjectId: newSubject("bob") });
      const aliceB = await createSession(api, b.id, { subjectId: alice });
      const other = await newTenant(server);
      const c = await createAgent(other, { rateLimits: { messagesPerMinute: 1 } });
      const aliceC = await createSession(other, c.id, { subjectId: alice });

      expect((await send(api, aliceA1.id, [steer("x")])).status).to.equal(202);
      // Another session of the same agent and subject shares the counter...
      expectRateLimited(await send(api, aliceA2.id, [steer("x")]), "messages", 1);
      // ...while another subject, another agent and another organization each have their own.
      expect((await send(api, bobA.id, [steer("x")])).status).to.equal(202);
      expect((await send(api, aliceB.id, [steer("x")])).status).to.equal(202);
      expect((await send(other, aliceC.id, [steer("x")])).status).to.equal(202);
    });

    it("two keys of one organization share one counter", async () => {
      await roomInWindow(5_000);
      const orgId = await server.core.stores.organizations.ensureOrganization(newSubject("org"));
      const first = client(server.url, (await server.core.stores.organizations.createKey(orgId)).key);
      const second = client(server.url, (await server.core.stores.organizations.createKey(orgId)).key);
      const agent = await createAgent(first, { rateLimits: { messagesPerMinute: 3 } });
      const session = await createSession(first, agent.id);
      expect(remainingOf(await send(first, session.id, [steer("a")]))).to.equal(2);
      expect(remainingOf(await send(second, session.id, [steer("b"), steer("c")]))).to.equal(0);
      expectRateLimited(await send(first, session.id, [steer("d")]), "messages", 3);
    });

    it("a rate-limit PATCH applies at once to existing sessions", async () => {
      await roomInWindow(5_000);
      const { api, agent, session } = await limited(10);
      expectRateLimitHeaders(await send(api, session.id, [steer("a"), steer("b"), steer("c")]), 10, 7);
      expect((await api.patch(`/v1/agents/${agent.id}/rate-limits`, { messagesPerMinute: 3 })).status).to.equal(200);
      const refused = await send(api, session.id, [steer("d")]);
      expectRateLimited(refused, "messages", 3);
      expect(refused.body.rateLimit.remaining).to.equal(0);
      expect((await api.patch(`/v1/agents/${agent.id}/rate-limits`, { messagesPerMinute: 20 })).status).to.equal(200);
      expectRateLimitHeaders(await send(api, session.id, [steer("e")]), 20, 16);
      expect((await allEvents(api, session.id)).map((e) => e.payload.message)).to.deep.equal(["a", "b", "c", "e"]);
    });
  });
});
