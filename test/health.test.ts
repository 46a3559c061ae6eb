import { expect } from "chai";
import { expectError, expectValidation } from "./support/expect.js";
import { capturingLogs } from "./support/logs.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";

describe("health and the HTTP contract", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  it("GET /healthz answers without a key", async () => {
    const res = await client(server.url).get("/healthz");
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: "ok" });
  });

  it("GET /readyz reports MongoDB and Redis", async () => {
    const res = await client(server.url).get("/readyz");
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: "ok", checks: { mongodb: "ok", redis: "ok" } });
  });

  it("an unknown route is 404 not_found", async () => {
    const res = await api.get("/v1/nothing-here");
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.equal({ error: "not_found", message: "no such route", requestId: res.headers.get("x-request-id") });
  });

  it("a known path with another method is 405 method_not_allowed with Allow", async () => {
    const res = await api.put("/v1/agents", agentBody());
    expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).to.include("GET").and.include("POST");
    const archive = await api.delete("/v1/agents/agt_x/archive");
    expectError(archive, 405, "method_not_allowed");
    expect(archive.headers.get("allow")).to.include("POST");
  });

  it("malformed JSON is 400 validation_error", async () => {
    const res = await api.post("/v1/agents", undefined, { raw: "{bad" });
    expectValidation(res, "body: must be a valid JSON object");
  });

  it("a body that is not JSON is 400 validation_error", async () => {
    const res = await api.post("/v1/agents", undefined, { raw: "name=bot", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expectValidation(res, "content-type: must be application/json");
    const text = await api.patch("/v1/agents/agt_x", undefined, { raw: JSON.stringify({ name: "x" }), headers: { "content-type": "text/plain" } });
    expectValidation(text, "content-type: must be application/json");
  });

  it("a body over the size limit is 400 validation_error", async () => {
    const res = await api.post("/v1/agents", undefined, { raw: JSON.stringify({ ...agentBody(), systemPrompt: "x".repeat(17 * 1024 * 1024) }) });
    expectValidation(res, "body: must be at most 16777216 bytes");
  });

  it("an unexpected failure is 500 server_error, logged with its cause, without a stack trace in the response", async () => {
    const agents = server.core.services.agents;
    const original = agents.list;
    const cause = new Error("database exploded at /srv/internal/secret-path");
    agents.list = async () => {
      throw cause;
    };
    const { result: res, lines } = await capturingLogs(() => api.get("/v1/agents")).finally(() => {
      agents.list = original;
    });
    expectError(res, 500, "server_error");
    expect(res.body).to.deep.equal({ error: "server_error", message: "unexpected error", requestId: res.headers.get("x-request-id") });

    const entry = lines.map((line) => JSON.parse(line) as Record<string, any>).find((e) => e.msg === "request failed");
    expect(entry, lines.join("\n")).to.not.equal(undefined);
    expect(entry).to.include({ level: "error", method: "GET", path: "/v1/agents" });
    expect(entry!.requestId).to.equal(res.headers.get("x-request-id"));
    expect(entry!.err.message).to.equal(cause.message);
    expect(entry!.err.stack).to.include("database exploded");
  });
});

describe("when a backing service does not answer", () => {
  let server: TestServer;
  afterEach(async () => server.close());

  it("Redis down: /readyz is 503 and an authenticated request is 503 server_error (the ceiling cannot be checked)", async () => {
    server = await startServer();
    const api = client(server.url, await server.newKey());
    server.core.connections.redis.disconnect();
    const ready = await client(server.url).get("/readyz");
    expect(ready.status).to.equal(503);
    expect(ready.body).to.deep.equal({ status: "unavailable", checks: { mongodb: "ok", redis: "unavailable" } });
    // A 5xx is logged; keep that line out of the test report.
    expectError((await capturingLogs(() => api.get("/v1/agents"))).result, 503, "server_error");
    expect((await client(server.url).get("/healthz")).status).to.equal(200);
  });

  it("MongoDB down: /readyz is 503", async () => {
    server = await startServer();
    await server.core.connections.mongo.client.close();
    const ready = await client(server.url).get("/readyz");
    expect(ready.status).to.equal(503);
    expect(ready.body).to.deep.equal({ status: "unavailable", checks: { mongodb: "unavailable", redis: "ok" } });
  });
});
