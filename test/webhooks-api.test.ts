import { expect } from "chai";
import { expectError, expectValidation } from "./support/expect.js";
import { holdsSecret, secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

describe("webhooks: endpoints' API", () => {
  let server: TestServer;
  let api: Client;
  let other: Client;

  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
    other = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  const url = "http://127.0.0.1:9/hooks";

  it("creates an endpoint with a secret answered once; reads, lists, changes, rotates and deletes it", async () => {
    const created = await api.post("/v1/webhooks", { url, description: "ops", eventTypes: ["session.requires_action", "deployment.status_changed"] });
    expect(created.status).to.equal(201);
    const first = secret(created.body.secret);
    expect(first).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body.id;
    expect(created.body).to.deep.include({
      type: "webhook_endpoint",
      url,
      description: "ops",
      eventTypes: ["session.requires_action", "deployment.status_changed"],
      enabled: true,
    });

    // Every later answer is scanned for the secret by the test client: none may hold it.
    const read = await api.get(`/v1/webhooks/${id}`);
    expect(read.body).to.not.have.property("secret");
    const { secret: _, ...shown } = created.body;
    expect(read.body).to.deep.equal(shown);
    const list = await api.get("/v1/webhooks?limit=1");
    expect(list.body.data).to.deep.equal([shown]);
    expect(list.body.pagination).to.deep.equal({ limit: 1, offset: 0, hasMore: false });

    const changed = await api.patch(`/v1/webhooks/${id}`, { enabled: false, eventTypes: null, description: null });
    expect(changed.status).to.equal(200);
    expect(changed.body).to.deep.include({ url, enabled: false, eventTypes: null, description: null });
    expect(changed.body).to.not.have.property("secret");

    const rotated = await api.post(`/v1/webhooks/${id}/rotate-secret`);
    const second = secret(rotated.body.secret);
    expect(second)
      .to.match(/^whsec_/)
      .and.not.equal(first);
    expect(holdsSecret(JSON.stringify((await api.get(`/v1/webhooks/${id}`)).body))).to.equal(false);

    expect((await api.get(`/v1/webhooks/${id}/deliveries`)).body).to.deep.equal({
      object: "list",
      data: [],
      pagination: { limit: 50, offset: 0, hasMore: false },
    });
    expect((await api.delete(`/v1/webhooks/${id}`)).body).to.deep.equal({ object: "webhook_endpoint.deleted", id, deleted: true });
    expectError(await api.get(`/v1/webhooks/${id}`), 404, "not_found");
    expectError(await api.delete(`/v1/webhooks/${id}`), 404, "not_found");
  });

  it("refuses bad endpoints, with every problem named", async () => {
    expectValidation(await api.post("/v1/webhooks", {}), "url: is required");
    expectValidation(await api.post("/v1/webhooks", { url: "ftp://example.com/h" }), "url: must match the pattern ^https?://");
    expectValidation(await api.post("/v1/webhooks", { url: "https://user:pw@example.com/h" }), "url: must not contain credentials");
    expectValidation(await api.post("/v1/webhooks", { url: `https://example.com/${"x".repeat(2048)}` }), "url: must be at most 2048 characters");
    expectValidation(await api.post("/v1/webhooks", { url, description: "d".repeat(501) }), "description: must be at most 500 characters");
    expectValidation(await api.post("/v1/webhooks", { url, eventTypes: [] }), "eventTypes: must have at least 1 items");
    expectValidation(
      await api.post("/v1/webhooks", { url, eventTypes: ["session.status_changed", "session.status_changed"] }),
      "eventTypes: must not contain duplicate items",
    );
    const unknown = await api.post("/v1/webhooks", { url, eventTypes: ["session.created"] });
    expectError(unknown, 400, "validation_error");
    expect(unknown.body.message).to.match(/^eventTypes\[0\]: must be one of/);
    expectValidation(await api.post("/v1/webhooks", { url, secret: "whsec_mine" }), "secret: is not allowed");
    const { body } = await api.post("/v1/webhooks", { url });
    secret(body.secret);
    expectValidation(await api.patch(`/v1/webhooks/${body.id}`, {}), "body: must have at least 1 property");
    expectValidation(await api.patch(`/v1/webhooks/${body.id}`, { url: "https://a:b@example.com" }), "url: must not contain credentials");
    await api.delete(`/v1/webhooks/${body.id}`);
  });

  it("answers 404 for another organization's endpoint and its deliveries", async () => {
    const { body } = await api.post("/v1/webhooks", { url });
    secret(body.secret);
    for (const res of [
      await other.get(`/v1/webhooks/${body.id}`),
      await other.patch(`/v1/webhooks/${body.id}`, { enabled: false }),
      await other.post(`/v1/webhooks/${body.id}/rotate-secret`),
      await other.get(`/v1/webhooks/${body.id}/deliveries`),
      await other.get(`/v1/webhooks/${body.id}/deliveries/msg_x`),
      await other.post(`/v1/webhooks/${body.id}/deliveries/msg_x/retry`),
      await other.delete(`/v1/webhooks/${body.id}`),
    ]) {
      expectError(res, 404, "not_found");
    }
    expect((await other.get("/v1/webhooks")).body.data).to.deep.equal([]);
    expect((await api.get(`/v1/webhooks/${body.id}`)).body.enabled).to.equal(true);
    expectError(await api.get(`/v1/webhooks/${body.id}/deliveries/msg_x`), 404, "not_found");
    await api.delete(`/v1/webhooks/${body.id}`);
  });

  it("bounds an organization's endpoints", async () => {
    const own = client(server.url, await server.newKey());
    for (let i = 0; i < 20; i++) secret((await own.post("/v1/webhooks", { url: `${url}/${i}` })).body.secret);
    expectError(await own.post("/v1/webhooks", { url }), 409, "conflict");
    const page = await own.get("/v1/webhooks?limit=100");
    expect(page.body.data).to.have.length(20);
    await own.delete(`/v1/webhooks/${page.body.data[0].id}`);
    expect((await own.post("/v1/webhooks", { url })).status).to.equal(201);
  });

  it("replays a creation under its Idempotency-Key without the secret, which is never kept", async () => {
    const headers = { "idempotency-key": `whk-${process.pid}-${Date.now()}` };
    const first = await api.post("/v1/webhooks", { url }, { headers });
    expect(first.status).to.equal(201);
    secret(first.body.secret);
    const again = await api.post("/v1/webhooks", { url }, { headers });
    expect(again.status).to.equal(201);
    expect(again.headers.get("idempotent-replayed")).to.equal("true");
    const { secret: _, ...shown } = first.body;
    expect(again.body).to.deep.equal(shown);
    const kept = await server.core.connections.redis.keys(`${server.core.connections.keys.prefix}:idem:*`);
    const values = await Promise.all(kept.map((k) => server.core.connections.redis.hgetall(k)));
    expect(values.some((v) => JSON.stringify(v).includes(first.body.secret))).to.equal(false);
    await api.delete(`/v1/webhooks/${first.body.id}`);
  });
});
