/** Request ids: kept from a well-formed `X-Request-Id`, made otherwise, returned, and on every log line of the request. */
import { expect } from "chai";
import { capturingLogs } from "./support/logs.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

describe("request ids", () => {
  let server: TestServer;
  let api: Client;

  before(async () => {
    server = await startServer({ LOG_LEVEL: "warn" });
    api = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  it("keeps a well-formed X-Request-Id and returns it", async () => {
    const res = await api.get("/v1/agents", { headers: { "x-request-id": "trace-42.a:b_c" } });
    expect(res.status).to.equal(200);
    expect(res.headers.get("x-request-id")).to.equal("trace-42.a:b_c");
  });

  it("replaces one that is too long or holds other characters with a generated id", async () => {
    for (const offered of ["x".repeat(101), "has spaces", "new\u00e9line"]) {
      const res = await api.get("/v1/agents", { headers: { "x-request-id": offered } });
      const id = res.headers.get("x-request-id");
      expect(id).to.match(/^[0-9a-f-]{36}$/);
      expect(id).not.to.equal(offered);
    }
  });

  it("is in every error body, as in the header", async () => {
    const res = await api.get(`/v1/agents/agt_missing${Date.now()}`, { headers: { "x-request-id": "err-9" } });
    expect(res.status).to.equal(404);
    expect(res.body).to.include({ error: "not_found", requestId: "err-9" });
    const anonymous = await client(server.url).get("/v1/agents");
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body.requestId).to.equal(anonymous.headers.get("x-request-id"));
  });

  it("is on a line logged deep inside the request's handling, not only by the error path", async () => {
    const agents = server.core.services.agents;
    const original = agents.list;
    agents.list = async (...args: Parameters<typeof original>) => {
      await new Promise((r) => setTimeout(r, 1));
      server.core.process.log.warn("listing agents, deep inside");
      return original.apply(agents, args);
    };
    const { result: res, lines } = await capturingLogs(() => api.get("/v1/agents", { headers: { "x-request-id": "deep-1" } })).finally(() => {
      agents.list = original;
    });
    const entry = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e.msg === "listing agents, deep inside");
    expect(entry, lines.join("\n")).to.include({ level: "warn", requestId: "deep-1" });
    expect(res.headers.get("x-request-id")).to.equal("deep-1");
  });
});
