/** Agents validation of the list queries: GET /v1/agents and GET /v1/agents/{agentId}/versions. */
import { expect } from "chai";
import { expectValidation } from "./support/expect.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";
import { docs } from "./agents-validation-cases.js";

describe("agents: validation", () => {
  let server: TestServer;
  let api: Client;
  let agentId: string;

  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
    const created = await api.post("/v1/agents", agentBody({ mcpServers: [docs] }));
    expect(created.status).to.equal(201);
    agentId = created.body.id;
  });
  after(async () => server.close());

  describe("list queries", () => {
    const listCases: [string, string][] = [
      ["limit=0", "limit: must be >= 1"],
      ["limit=101", "limit: must be <= 100"],
      ["limit=ten", "limit: must be integer"],
      ["limit=1.5", "limit: must be integer"],
      ["offset=-1", "offset: must be >= 0"],
      ["offset=first", "offset: must be integer"],
      ["offset=100001", "offset: must be <= 100000"],
      ["limit=1&limit=2", "limit: must be given at most once"],
      ["cursor=abc", "cursor: is not allowed"],
    ];
    for (const [query, entry] of [...listCases, ["status=deleted", "status: must be one of: active, archived"] as [string, string]]) {
      it(`GET /v1/agents?${query} → ${entry}`, async () => {
        expectValidation(await api.get(`/v1/agents?${query}`), entry);
      });
    }
    for (const [query, entry] of [...listCases, ["status=active", "status: is not allowed"] as [string, string]]) {
      it(`GET /v1/agents/{agentId}/versions?${query} → ${entry}`, async () => {
        expectValidation(await api.get(`/v1/agents/${agentId}/versions?${query}`), entry);
      });
    }
  });
});
