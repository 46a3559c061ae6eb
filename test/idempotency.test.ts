import { expect } from "chai";
import { Redis } from "ioredis";
import { expectError, roomInWindow } from "./support/expect.js";
import { env } from "./support/hooks.js";
import { allEvents, createAgent, createSession, message, newSubject, newTenant } from "./support/api.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

describe("Idempotency-Key", () => {
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

  const post = (api: Client, path: string, body: unknown, key?: string) => api.post(path, body, key === undefined ? {} : { headers: { "idempotency-key": key } });

  it("a retried send gets the first answer and appends nothing again, nor takes a second allowance point", async () => {
    await roomInWindow(5_000);
    const api = await newTenant(server);
    const agent = await createAgent(api, { rateLimits: { messagesPerMinute: 2 } });
    const session = await createSession(api, agent.id);
    const path = `/v1/sessions/${session.id}/events`;
    const body = { events: [message("/slow 300 only once")] };
    const first = await post(api, path, body, "send-1");
    expect(first.status, JSON.stringify(first.body)).to.equal(202);
    expect(first.headers.get("idempotent-replayed")).to.equal(null);
    const again = await post(api, path, body, "send-1");
    expect(again.status).to.equal(202);
    expect(again.headers.get("idempotent-replayed")).to.equal("true");
    expect(again.body).to.deep.equal(first.body);
    const texts = (await allEvents(api, session.id)).filter((e) => e.type === "user.message").map((e) => e.payload.content[0].text);
    expect(texts).to.deep.equal(["/slow 300 only once"]);
    // One point of two was taken: one more send fits, a third does not.
    expect((await post(api, path, { events: [{ type: "user.interrupt" }] }, "send-2")).status).to.equal(202);
    expectError(await post(api, path, { events: [{ type: "user.interrupt" }] }, "send-3"), 429, "rate_limited");
  });

  it("a retried create gets the same session; the same key with another body or path is 422", async () => {
    const api = await newTenant(server);
    const agent = await createAgent(api);
    const body = { agentId: agent.id, subjectId: newSubject() };
    const first = await post(api, "/v1/sessions", body, "create-1");
    expect(first.status).to.equal(201);
    const again = await post(api, "/v1/sessions", body, "create-1");
    expect([again.status, again.body.id]).to.deep.equal([201, first.body.id]);
    expect((await api.get(`/v1/sessions?agentId=${agent.id}`)).body.data).to.have.length(1);
    const other = await post(api, "/v1/sessions", { ...body, subjectId: newSubject() }, "create-1");
    expectError(other, 422, "idempotency_error");
    expect(other.body.message).to.match(/another request/);
    expectError(await post(api, `/v1/sessions/${first.body.id}/events`, { events: [message("x")] }, "create-1"), 422, "idempotency_error");
  });

  it("keys are the organization's own, kept 24 hours; a failed request frees its key", async () => {
    const [a, b] = [await newTenant(server), await newTenant(server)];
    const agentA = await createAgent(a);
    const agentB = await createAgent(b);
    const first = await post(a, "/v1/sessions", { agentId: agentA.id, subjectId: newSubject() }, "shared");
    const second = await post(b, "/v1/sessions", { agentId: agentB.id, subjectId: newSubject() }, "shared");
    expect([first.status, second.status]).to.deep.equal([201, 201]);
    expect(second.headers.get("idempotent-replayed")).to.equal(null);
    const kept = await redis.keys(`${env.redisKeyPrefix}:idem:*`);
    const ttls = await Promise.all(kept.map((k) => redis.pttl(k)));
    expect(ttls.every((t) => t > 23 * 3_600_000 && t <= 24 * 3_600_000), String(ttls)).to.equal(true);

    // A refusal does nothing: the key is free for the request, corrected or not.
    const missing = await post(a, "/v1/sessions", { agentId: "agt_missing", subjectId: "s" }, "failing");
    expectError(missing, 404, "not_found");
    expectError(await post(a, "/v1/sessions", { agentId: "agt_missing", subjectId: "s" }, "failing"), 404, "not_found");
    expect((await post(a, "/v1/sessions", { agentId: agentA.id, subjectId: newSubject() }, "failing")).status).to.equal(201);
  });

  it("of concurrent duplicates one runs and the others are 409 or its answer, never a second session", async () => {
    const api = await newTenant(server);
    const agent = await createAgent(api);
    const body = { agentId: agent.id, subjectId: newSubject() };
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(api, "/v1/sessions", body, "race")));
    const created = answers.filter((r) => r.status === 201);
    expect(created.length).to.be.at.least(1);
    expect(new Set(created.map((r) => r.body.id)).size).to.equal(1);
    for (const r of answers.filter((x) => x.status !== 201)) expectError(r, 409, "conflict");
    expect((await api.get(`/v1/sessions?agentId=${agent.id}`)).body.data).to.have.length(1);
  });

  it("refuses a key empty, too long or not printable ASCII", async () => {
    const api = await newTenant(server);
    const agent = await createAgent(api);
    const body = { agentId: agent.id, subjectId: newSubject() };
    expectError(await post(api, "/v1/sessions", body, "k".repeat(256)), 400, "validation_error");
    expectError(await post(api, "/v1/sessions", body, "with space"), 400, "validation_error");
    expectError(await post(api, "/v1/sessions", body, ""), 400, "validation_error");
    expect((await post(api, "/v1/sessions", body, "k".repeat(255))).status).to.equal(201);
  });
});
