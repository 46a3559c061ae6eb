import { expect } from "chai";
import { capturingLogs } from "./support/logs.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";

/**
 * Caller-chosen object keys (metadata keys, JSON Schema keywords of a custom tool's input_schema) that
 * the document store refuses (`$…`, `a.b`) must not turn into a 500 whose log line carries the
 * caller's data: they are accepted or refused as a validation error.
 */
describe("security: caller-chosen keys the store refuses", () => {
  let server: TestServer;
  let api: Client;
  let agentId: string;

  before(async () => {
    server = await startServer({ LOG_LEVEL: "error" });
    api = client(server.url, await server.newKey());
    agentId = (await api.post("/v1/agents", agentBody())).body.id;
  });
  after(async () => server.close());

  /** Never a 500, never in the logs; an error never echoes it, and an accepted value comes back intact. */
  async function expectHandled(send: () => Promise<{ status: number; body: any }>, secret: string) {
    const { result, lines } = await capturingLogs(send);
    expect(result.status, JSON.stringify(result.body)).to.be.below(500);
    expect(lines.join("\n")).to.not.include(secret);
    if (result.status >= 400) expect(JSON.stringify(result.body)).to.not.include(secret);
    return result;
  }

  it("a session metadata key starting with $ is not a 500 that logs the key", async () => {
    const res = await expectHandled(() => api.post("/v1/sessions", { agentId, subjectId: "s1", metadata: { $tok_9f3a: "x" } }), "tok_9f3a");
    expect(res.status).to.equal(201);
    expect((await api.get(`/v1/sessions/${res.body.id}`)).body.metadata).to.deep.equal({ $tok_9f3a: "x" });
  });

  it("a session metadata key with a dot is not a 500 that logs the key", async () => {
    const res = await expectHandled(() => api.post("/v1/sessions", { agentId, subjectId: "s1", metadata: { "acct.7731": "x" } }), "acct.7731");
    expect(res.status).to.equal(201);
    expect((await api.get("/v1/sessions?subjectId=s1")).body.data.map((x: any) => x.metadata)).to.deep.include({ "acct.7731": "x" });
  });

  it("updating a session's metadata with such a key is not a 500 that logs the key", async () => {
    const session = await api.post("/v1/sessions", { agentId, subjectId: "s2" });
    const res = await expectHandled(() => api.post(`/v1/sessions/${session.body.id}`, { metadata: { $tok_5e1d: "x" } }), "tok_5e1d");
    expect(res.body.metadata).to.deep.equal({ $tok_5e1d: "x" });
  });

  it("a custom tool input_schema using $defs is not a 500 that logs it", async () => {
    const tool = {
      type: "custom_tool",
      name: "lookup",
      description: "d",
      input_schema: { type: "object", properties: {}, $defs: { order_7c2b: { type: "string" } } },
    };
    const res = await expectHandled(() => api.post("/v1/agents", agentBody({ tools: [tool] })), "order_7c2b");
    expect(res.status).to.equal(201);
    const stored = await api.get(`/v1/agents/${res.body.id}/versions/1`);
    expect(stored.body.tools[0].input_schema).to.deep.equal(tool.input_schema);
  });
});
