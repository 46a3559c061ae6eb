import { expect } from "chai";
import { expectError, roomInWindow } from "./support/expect.js";
import type { RedisClient } from "../src/redis/client.js";
import { env } from "./support/hooks.js";
import { masters, testRedis } from "./support/redis.js";
import { allEvents, createAgent, createSession, message, newSubject, newTenant } from "./support/api.js";
import { createHash } from "node:crypto";
import { newIdSeed } from "../src/ids.js";
import { onceOf } from "../src/idempotency/index.js";
import { deploymentBody, deploymentsClient, settled } from "./support/deployments.js";
import { until } from "./support/sessions.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

describe("Idempotency-Key", () => {
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

  const post = (api: Client, path: string, body: unknown, key?: string) =>
    api.post(path, body, key === undefined ? {} : { headers: { "idempotency-key": key } });

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
    const kept = (await Promise.all(masters(redis).map((node) => node.keys(`${env.redisKeyPrefix}:idem:*`)))).flat();
    const ttls = await Promise.all(kept.map((k) => redis.pttl(k)));
    expect(
      ttls.every((t) => t > 23 * 3_600_000 && t <= 24 * 3_600_000),
      String(ttls),
    ).to.equal(true);

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

  it("covers the deployments interface: a retried create makes one deployment, a retried message one turn", async () => {
    const { api } = await deploymentsClient(server);
    const customer = `cus_idem_${Date.now()}`;
    const body = deploymentBody({ customer_id: customer });
    const first = await post(api, "/v1/deployments", body, "deploy-1");
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const again = await post(api, "/v1/deployments", body, "deploy-1");
    expect(again.status).to.equal(201);
    expect(again.headers.get("idempotent-replayed")).to.equal("true");
    expect(again.body).to.deep.equal(first.body);
    expectError(await post(api, "/v1/deployments", deploymentBody({ customer_id: `${customer}-other` }), "deploy-1"), 422, "idempotency_error");
    expect((await api.get(`/v1/deployments?customer_id=${customer}`)).body.data).to.have.length(1);

    const d = await settled(api, first.body.deployment_id);
    const path = `/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`;
    const sent = await post(api, path, { events: [message("only once")] }, "message-1");
    expect(sent.status).to.equal(202);
    const resent = await post(api, path, { events: [message("only once")] }, "message-1");
    expect(resent.body).to.deep.equal(sent.body);
    const events = await until(
      async () => (await api.get(`${path}?limit=100`)).body.data as { type: string }[],
      (all) => all.some((e) => e.type === "session.status_idle"),
      15_000,
      "the turn",
    );
    expect(events.filter((e) => e.type === "user.message")).to.have.length(1);
  });

  it("a send committed by a first attempt that never answered (its process died) is answered from that commit, never appended again", async () => {
    const api = await newTenant(server);
    const agent = await createAgent(api);
    const session = await createSession(api, agent.id);
    const { orgId } = (await server.core.stores.sessions.byId(session.id))!;
    const path = `/v1/sessions/${session.id}/events`;
    const request = (body: unknown) => `POST ${path}\n${JSON.stringify(body)}`;
    const sendOnce = (key: string, body: { events: any[] }) =>
      server.core.services.events.post(orgId, session.id, body, Promise.resolve(), onceOf(orgId, key, request(body), { seed: newIdSeed(), retaken: false }));
    const body = { events: [message("/slow 300 kept once")] };

    // The first attempt committed under the key; its answer and its key's record were lost with its process.
    const first = await sendOnce("lost-1", body);
    const retry = await post(api, path, body, "lost-1");
    expect(retry.status, JSON.stringify(retry.body)).to.equal(202);
    expect(retry.headers.get("idempotent-replayed")).to.equal("true");
    expect(retry.body.data.map((e: { id: string }) => e.id)).to.deep.equal(first.data.map((e) => e.id));

    // The same key with another body is refused, however the first attempt ended.
    const idle = () =>
      until(
        () => api.get(`/v1/sessions/${session.id}`),
        (r) => r.body.status === "idle",
        15_000,
        "idle",
      );
    await idle();
    await sendOnce("lost-2", { events: [message("/slow 300 second")] });
    expectError(await post(api, path, { events: [message("not the same")] }, "lost-2"), 422, "idempotency_error");

    // Two attempts at once (a retry racing the first): one commit; the other is answered with its events.
    await idle();
    const twice = { events: [message("/slow 300 raced")] };
    const [a, b] = await Promise.all([sendOnce("race-1", twice), sendOnce("race-1", twice)]);
    expect(a.data.map((e) => e.id)).to.deep.equal(b.data.map((e) => e.id));
    expect([a.replayed, b.replayed].filter(Boolean)).to.have.length(1);

    const texts = (await allEvents(api, session.id)).filter((e: any) => e.type === "user.message").map((e: any) => e.payload.content[0].text);
    expect(texts.filter((t: string) => t === "/slow 300 kept once")).to.have.length(1);
    expect(texts.filter((t: string) => t === "/slow 300 raced")).to.have.length(1);
  });

  it("keeps a fingerprint keyed by the Idempotency-Key, not a hash of the body", async () => {
    const api = await newTenant(server);
    const agent = await createAgent(api);
    const body = { agentId: agent.id, subjectId: newSubject() };
    const plain = createHash("sha256")
      .update(`POST /v1/sessions\n${JSON.stringify(body)}`)
      .digest("base64url");
    const first = await post(api, "/v1/sessions", body, "keyed-1");
    expect(first.status).to.equal(201);
    const record = await recordOf("keyed-1");
    const stored = await redis.hget(record, "fingerprint");
    expect(stored).to.be.a("string").with.length(43);
    expect(stored, "a plain hash of the request would let a guessed body be checked").not.to.equal(plain);
  });

  /** The Redis record of an Idempotency-Key (the tests' organizations never share a key). */
  async function recordOf(key: string): Promise<string> {
    const hash = createHash("sha256").update(key).digest("base64url");
    const records = (await Promise.all(masters(redis).map((node) => node.keys(`${env.redisKeyPrefix}:idem:*:${hash}`)))).flat();
    expect(records, key).to.have.length(1);
    return records[0]!;
  }

  /** Leaves a key's record as its first attempt's death did: running, its lease lapsed, no answer kept. */
  async function diedBeforeAnswering(key: string): Promise<void> {
    const record = await recordOf(key);
    await redis.hset(record, "state", "running", "leaseUntil", 0);
    await redis.hdel(record, "status", "body");
  }

  /** A create under a key whose first attempt made the resource, then died before answering: the retry answers it, replayed. */
  async function retriedAfterDying(api: Client, path: string, body: unknown, idOf: (b: any) => string = (b) => b.id) {
    const key = `lost-${newIdSeed()}`;
    const first = await post(api, path, body, key);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    await diedBeforeAnswering(key);
    const retry = await post(api, path, body, key);
    expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
    expect(retry.headers.get("idempotent-replayed")).to.equal("true");
    expect(idOf(retry.body)).to.equal(idOf(first.body));
    return { key, first: first.body, retry: retry.body };
  }

  it("a create whose first attempt died before answering is found by the retry, not made twice: sessions, agents, vaults, credentials, automations, webhooks", async () => {
    const api = await newTenant(server);
    const agentBody = { name: "kept", modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [] };
    const { key, first: agent } = await retriedAfterDying(api, "/v1/agents", agentBody);
    expect((await api.get("/v1/agents?limit=100")).body.data.filter((a: { name: string }) => a.name === "kept")).to.have.length(1);
    // The key's request is still its own: another body under it is refused, as before the death.
    await diedBeforeAnswering(key);
    expectError(await post(api, "/v1/agents", { ...agentBody, name: "other" }, key), 422, "idempotency_error");

    const subjectId = newSubject();
    await retriedAfterDying(api, "/v1/sessions", { agentId: agent.id, subjectId });
    expect((await api.get(`/v1/sessions?agentId=${agent.id}`)).body.data.filter((s: { subjectId: string }) => s.subjectId === subjectId)).to.have.length(1);

    const vault = (await retriedAfterDying(api, "/v1/vaults", { displayName: "kept" })).first;
    await retriedAfterDying(api, `/v1/vaults/${vault.id}/credentials`, {
      displayName: "c",
      auth: { type: "static_bearer", mcpServerUrl: "https://mcp.example.com/mcp", token: "tok-kept" },
    });
    expect((await api.get(`/v1/vaults/${vault.id}/credentials`)).body.data).to.have.length(1);

    await retriedAfterDying(api, `/v1/agents/${agent.id}/users/${subjectId}/automations`, { prompt: "Check in.", schedule: "every 1h" });
    expect((await api.get(`/v1/agents/${agent.id}/users/${subjectId}/automations`)).body.data).to.have.length(1);

    // The endpoint's secret was shown by no answer: the retry shows it, the one deliveries are signed with.
    const hook = await retriedAfterDying(api, "/v1/webhooks", { url: "http://127.0.0.1:9/hooks" });
    expect(hook.retry.secret).to.be.a("string").and.equal(hook.first.secret);
    expect((await api.get("/v1/webhooks")).body.data).to.have.length(1);
  });

  it("on the deployments interface too: a secret and a deployment, whose provisioning the retry kicks again", async () => {
    const { api } = await deploymentsClient(server);
    const secretRef = (await retriedAfterDying(api, "/v1/secrets", { name: "kept", value: "s3cret-kept" })).first;
    expect((await api.get("/v1/secrets?limit=100")).body.data.filter((s: { name: string }) => s.name === "kept")).to.have.length(1);
    const customer = `cus_kept_${newIdSeed()}`;
    const { first } = await retriedAfterDying(
      api,
      "/v1/deployments",
      deploymentBody({ customer_id: customer, secrets: { TOKEN: secretRef.id } }),
      (b) => b.deployment_id,
    );
    expect((await api.get(`/v1/deployments?customer_id=${customer}`)).body.data).to.have.length(1);
    expect((await settled(api, first.deployment_id)).status).to.equal("ready");
  });
});
