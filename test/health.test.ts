import { expect } from "chai";
import { expectError, expectValidation } from "./support/expect.js";
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
    expect(res.body).to.deep.equal({ error: "not_found", message: "no such route" });
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
    const agents = server.services.agents;
    const original = agents.list;
    const cause = new Error("database exploded at /srv/internal/secret-path");
    agents.list = async () => {
      throw cause;
    };
    const logged: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    let res;
    try {
      res = await api.get("/v1/agents");
    } finally {
      process.stdout.write = write;
      agents.list = original;
    }
    expectError(res, 500, "server_error");
    expect(res.body).to.deep.equal({ error: "server_error", message: "unexpected error" });

    const entry = logged.map((line) => JSON.parse(line) as Record<string, any>).find((e) => e.msg === "request failed");
    expect(entry, logged.join("")).to.not.equal(undefined);
    expect(entry).to.include({ level: "error", method: "GET", path: "/v1/agents" });
    expect(entry!.requestId).to.equal(res.headers.get("x-request-id"));
    expect(entry!.err.message).to.equal(cause.message);
    expect(entry!.err.stack).to.include("database exploded");
  });
});
