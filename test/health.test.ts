import { expect } from "chai";
import { client, startServer, type TestServer } from "./support/server.js";

describe("health and the HTTP contract", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
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
    const res = await client(server.url, await server.newKey()).get("/v1/nothing-here");
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.equal({ error: "not_found", message: "no such route" });
  });

  it("malformed JSON is 400 validation_error", async () => {
    const res = await client(server.url, await server.newKey()).post("/v1/agents", undefined, { raw: "{bad" });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal("validation_error");
  });
});
