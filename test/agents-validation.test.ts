import { expect } from "chai";
import { entriesOf, expectValidation, secretLike } from "./support/expect.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";
import { custom, docs, fieldCases, rateLimitValueCases, referenceCases, requiredCases, x, type Case } from "./agents-validation-cases.js";
import { roleServerMetadataCases } from "./agents-validation-more-cases.js";

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

  function createBody(fields: Record<string, unknown>): Record<string, unknown> {
    const body = agentBody(fields);
    for (const [k, v] of Object.entries(fields)) if (v === undefined) delete body[k];
    return body;
  }

  describe("create body (POST /v1/agents)", () => {
    for (const c of [...fieldCases, ...roleServerMetadataCases, ...requiredCases, ...referenceCases]) {
      it(`${c.what} → ${c.entry}`, async () => {
        expectValidation(await api.post("/v1/agents", createBody(c.fields)), c.entry);
      });
    }

    for (const c of rateLimitValueCases("rateLimits.")) {
      it(`rateLimits with ${c.what} → ${c.entry}`, async () => {
        expectValidation(await api.post("/v1/agents", agentBody({ rateLimits: c.fields })), c.entry);
      });
    }

    it("rateLimits of the wrong type → rateLimits: must be object", async () => {
      expectValidation(await api.post("/v1/agents", agentBody({ rateLimits: 5 })), "rateLimits: must be object");
    });

    it("a body that is not an object → body: must be object", async () => {
      expectValidation(await api.post("/v1/agents", [agentBody()]), "body: must be object");
    });

    it("lists every problem of a body, one entry each, joined by '; '", async () => {
      const res = await api.post("/v1/agents", { name: "", modelName: "mock/echo", skills: "none", tools: [] });
      expectValidation(res, "name: must not be empty", "systemPrompt: is required", "skills: must be array");
      expect(entriesOf(res)).to.have.length(3);
    });
  });

  describe("full-replace body (POST /v1/agents/{agentId})", () => {
    // The same schema and rules as create; a sample shows the route applies them.
    for (const c of [fieldCases[0]!, requiredCases[4]!, referenceCases[0]!, fieldCases.find((f) => f.what === "two custom tools with one name")!]) {
      it(`${c.what} → ${c.entry}`, async () => {
        expectValidation(await api.post(`/v1/agents/${agentId}`, createBody(c.fields)), c.entry);
      });
    }

    it("rateLimits out of range → rateLimits.messagesPerMinute: must be <= 1000", async () => {
      expectValidation(
        await api.post(`/v1/agents/${agentId}`, agentBody({ rateLimits: { messagesPerMinute: 1001 } })),
        "rateLimits.messagesPerMinute: must be <= 1000",
      );
    });
  });

  describe("PATCH body", () => {
    for (const c of [...fieldCases, ...roleServerMetadataCases]) {
      it(`${c.what} → ${c.entry}`, async () => {
        expectValidation(await api.patch(`/v1/agents/${agentId}`, c.fields), c.entry);
      });
    }

    const patchCases: Case[] = [
      { what: "expectedVersion of the wrong type", fields: { name: "n", expectedVersion: "1" }, entry: "expectedVersion: must be integer" },
      { what: "expectedVersion not an integer", fields: { name: "n", expectedVersion: 1.5 }, entry: "expectedVersion: must be integer" },
      { what: "expectedVersion below 1", fields: { name: "n", expectedVersion: 0 }, entry: "expectedVersion: must be >= 1" },
      { what: "rateLimits (they have their own endpoint)", fields: { rateLimits: { messagesPerMinute: 5 } }, entry: "rateLimits: is not allowed" },
      { what: "an empty body", fields: {}, entry: "body: must have at least 1 property" },
    ];
    for (const c of patchCases) {
      it(`${c.what} → ${c.entry}`, async () => {
        expectValidation(await api.patch(`/v1/agents/${agentId}`, c.fields), c.entry);
      });
    }

    it("a body that is not an object → body: must be object", async () => {
      expectValidation(await api.patch(`/v1/agents/${agentId}`, ["name"]), "body: must be object");
    });

    it("refused PATCHes published no version", async () => {
      expect((await api.get(`/v1/agents/${agentId}`)).body.version.version).to.equal(1);
    });
  });

  describe("rate-limits body (PATCH /v1/agents/{agentId}/rate-limits)", () => {
    for (const c of rateLimitValueCases("")) {
      it(`${c.what} → ${c.entry}`, async () => {
        expectValidation(await api.patch(`/v1/agents/${agentId}/rate-limits`, c.fields), c.entry);
      });
    }

    it("an empty body → body: must have at least 1 property", async () => {
      expectValidation(await api.patch(`/v1/agents/${agentId}/rate-limits`, {}), "body: must have at least 1 property");
    });

    it("a body that is not an object → body: must be object", async () => {
      expectValidation(await api.patch(`/v1/agents/${agentId}/rate-limits`, [5]), "body: must be object");
    });

    it("refused changes left the limits as they were", async () => {
      expect((await api.get(`/v1/agents/${agentId}`)).body.rateLimits).to.deep.equal({ conversationsPerMinute: 5, messagesPerMinute: 100 });
    });
  });

  describe("a validation message never contains a submitted value", () => {
    it("a secret-looking value sent in every field of a create body stays out of the message", async () => {
      const secret = secretLike();
      const res = await api.post("/v1/agents", {
        name: secret + x(200),
        modelName: secret,
        systemPrompt: secret.repeat(3000),
        skills: [
          { name: secret + x(200), content: "" },
          { name: 1, content: secret, [secret]: secret },
        ],
        tools: [
          { type: secret },
          { type: "custom_tool", name: secret + " tool", description: secret, input_schema: { type: secret, [secret]: secret } },
          { type: "mcp_toolset", mcpServerName: secret, configs: [{ name: secret, permissionPolicy: { type: secret } }] },
          { type: "agent_toolset", configs: [{ name: secret }], defaultConfig: { permissionPolicy: { type: secret } } },
        ],
        roles: [{ name: secret + x(200), description: 5, tools: [{ type: "mcp_toolset", mcpServerName: secret }] }],
        mcpServers: [
          { type: secret, name: secret + "!", url: secret },
          { type: "url", name: "ok", url: `ftp://${secret}.example.com` },
        ],
        rateLimits: { conversationsPerMinute: secret, [secret]: 1 },
        metadata: { [secret]: secret + x(600), [secret + x(64)]: 1, note: { secret } },
        [secret]: secret,
      });
      expectValidation(res);
      expect(entriesOf(res).length).to.be.greaterThan(10);
      expect(res.body.message).to.not.include(secret);
      expect(res.body.message).to.not.include(secret.slice(8)); // not even its random part
    });

    it("cross-field problems do not echo the names they compare", async () => {
      const secret = secretLike();
      const res = await api.post(
        "/v1/agents",
        agentBody({
          modelName: `${secret.replace(/-/g, "")}/model`,
          skills: [
            { name: secret, content: "a" },
            { name: secret, content: "b" },
          ],
          tools: [{ type: "mcp_toolset", mcpServerName: secret }, { ...custom({ name: secret }) }, { ...custom({ name: secret }) }],
          mcpServers: [
            { ...docs, name: secret },
            { ...docs, name: secret },
          ],
          roles: [
            { name: secret, tools: [] },
            { name: secret, tools: [] },
          ],
        }),
      );
      expectValidation(
        res,
        "skills[1].name: must be unique",
        "roles[1].name: must be unique",
        "mcpServers[1].name: must be unique",
        "tools[2].name: must be unique",
      );
      expect(res.body.message).to.not.include(secret.slice(8));
    });

    it("PATCH, rate-limits, list queries and version numbers do not echo the value either", async () => {
      const secret = secretLike();
      const replies = [
        await api.patch(`/v1/agents/${agentId}`, { name: 5, systemPrompt: [secret], expectedVersion: secret, metadata: { [secret]: [secret] }, [secret]: 1 }),
        await api.patch(`/v1/agents/${agentId}`, { tools: [{ type: "mcp_toolset", mcpServerName: secret }] }),
        await api.patch(`/v1/agents/${agentId}/rate-limits`, { messagesPerMinute: secret, [secret]: secret }),
        await api.get(`/v1/agents?limit=${secret}&offset=${secret}&status=${secret}&${secret}=${secret}`),
        await api.get(`/v1/agents?${secret}=1&${secret}=2`),
        await api.get(`/v1/agents/${agentId}/versions?limit=${secret}`),
        await api.get(`/v1/agents/${agentId}/versions/${secret}`),
      ];
      for (const res of replies) {
        expectValidation(res);
        expect(res.body.message).to.not.include(secret.slice(8));
      }
    });
  });
});
