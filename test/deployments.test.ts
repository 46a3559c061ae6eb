import { expect } from "chai";
import { deploymentBody, deploymentsClient, readyDeployment, settled } from "./support/deployments.js";
import { expectError, expectValidation } from "./support/expect.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

describe("deployments: create, get, list, authentication", () => {
  let server: TestServer;
  let api: Client;

  before(async () => {
    server = await startServer();
    ({ api } = await deploymentsClient(server));
  });
  after(async () => server.close());

  it("creates a deployment that provisions to ready, answering the create form then the full one", async () => {
    const res = await api.post("/v1/deployments", deploymentBody());
    expect(res.status).to.equal(201);
    expect(res.body).to.have.keys("deployment_id", "customer_id", "runtime", "status", "model", "thread_id", "filesystem", "events");
    expect(res.body).to.include({ customer_id: "cus_1", runtime: "native", status: "provisioning", model: "mock/echo" });
    expect(res.body.deployment_id).to.match(/^dep_/);
    expect(res.body.filesystem).to.deep.equal({ workspace_path: "/workspace", persistent: true });
    expect(res.body.events).to.deep.equal({ transport: "sse", url: `${server.deploymentsUrl}/v1/deployments/${res.body.deployment_id}/events` });
    const ready = await settled(api, res.body.deployment_id);
    expect(ready).to.include({ status: "ready", name: "Acme assistant", thread_id: res.body.thread_id, status_reason: null });
    expect(Date.parse(ready.created_at)).to.be.greaterThan(0);
  });

  it("defaults the model and the sandbox, and keeps a non-persistent filesystem as asked", async () => {
    const res = await api.post("/v1/deployments", deploymentBody({ model: undefined, sandbox: { persistent_filesystem: false } }));
    expect(res.status).to.equal(201);
    expect(res.body.model).to.equal("anthropic/claude-sonnet-4-5");
    expect(res.body.filesystem.persistent).to.equal(false);
  });

  it("refuses invalid bodies with validation_error, naming each problem", async () => {
    expectValidation(await api.post("/v1/deployments", {}), "customer_id: is required", "name: is required", "system_prompt: is required");
    const refused = async (overrides: Record<string, unknown>, entry: string) =>
      expectValidation(await api.post("/v1/deployments", deploymentBody(overrides)), entry);
    await refused({ runtime: "other" }, "runtime: must be one of: native");
    await refused({ secrets: { "1BAD": "sec_abc" } }, "secrets: has a property name that does not match the pattern ^[A-Za-z_][A-Za-z0-9_]{0,127}$");
    await refused({ secrets: { GOOD: "not-a-ref" } }, "secrets.GOOD: must match the pattern ^sec_[0-9a-z]{1,64}$");
    await refused(
      {
        mcp_servers: [
          { name: "a", url: "https://a.example/mcp" },
          { name: "a", url: "https://b.example/mcp" },
        ],
      },
      "mcp_servers[1].name: must be unique",
    );
    await refused({ mcp_servers: [{ name: "a", url: "https://user:pw@a.example/mcp" }] }, "mcp_servers[0].url: must not contain credentials");
    await refused({ mcp_servers: [{ name: "a", url: "ftp://a.example/mcp" }] }, "mcp_servers[0].url: must match the pattern ^https?://");
    await refused({ skills: [{ name: "x", source: "inline" }] }, "skills[0].content: is required");
    await refused({ skills: [{ name: "x", source: "git", url: "https://x" }] }, "skills[0].source: must be one of: inline, url, file");
    await refused({ features: { memory: "yes" } }, "features.memory: must be boolean");
    await refused({ features: { telepathy: true } }, "features.telepathy: is not allowed");
    await refused({ sandbox: { type: "vm" } }, "sandbox.type: must be one of: docker, local");
    await refused({ model: "acme/gpt" }, "model: provider must be one of: anthropic, mock, openai");
    await refused({ name: "" }, "name: must not be empty");
    await refused({ customer_id: "x".repeat(201) }, "customer_id: must be at most 200 characters");
    const path = await api.post("/v1/deployments", deploymentBody({ skills: [{ name: "x", source: "file", path: "../etc/passwd" }] }));
    expectValidation(path);
    expect(path.body.message).to.match(/^skills\[0\]\.path: must match the pattern/);
    expectValidation(await api.post("/v1/deployments", undefined, { raw: "{not json" }), "body: must be a valid JSON object");
  });

  it("answers 401 without a valid Bearer key and 403 without the scope", async () => {
    const anonymous = client(server.deploymentsUrl);
    expectError(await anonymous.get("/v1/deployments"), 401, "unauthorized");
    expectError(await client(server.deploymentsUrl, "ask_nope", "bearer").get("/v1/deployments"), 401, "unauthorized");
    expectError(await anonymous.get("/v1/deployments", { headers: { authorization: "Basic abc" } }), 401, "unauthorized");
    const { api: reader } = await deploymentsClient(server, ["deployments:read"]);
    const { api: writer } = await deploymentsClient(server, ["deployments:write"]);
    expect((await reader.get("/v1/deployments")).status).to.equal(200);
    expectError(await reader.post("/v1/deployments", deploymentBody()), 403, "forbidden");
    expectError(await writer.get("/v1/deployments"), 403, "forbidden");
    expectError(await writer.get("/v1/deployments/dep_x"), 403, "forbidden");
    expectError(await reader.patch("/v1/deployments/dep_x", { name: "n" }), 403, "forbidden");
    expectError(await reader.delete("/v1/deployments/dep_x"), 403, "forbidden");
    // The scope is checked before the body: a key without it learns nothing of validation.
    expectError(await reader.post("/v1/deployments", {}), 403, "forbidden");
    // Nor of how its body is read: malformed JSON, another content type.
    expectError(await reader.post("/v1/deployments", undefined, { raw: "{not json" }), 403, "forbidden");
    expectError(await reader.patch("/v1/deployments/dep_x", undefined, { raw: "{not json" }), 403, "forbidden");
    expectError(
      await reader.post("/v1/deployments", undefined, { raw: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      403,
      "forbidden",
    );
    expectError(await writer.post("/v1/deployments/dep_x/threads/ses_x/events", undefined, { raw: "{not json" }), 400, "validation_error");
    // The two interfaces' keys do not stand in for each other.
    const coreKey = await server.newKey();
    expectError(await client(server.deploymentsUrl, coreKey, "bearer").get("/v1/deployments"), 403, "forbidden");
    const { key: deploymentsKey } = await deploymentsClient(server);
    expectError(await client(server.url, deploymentsKey).get("/v1/agents"), 403, "forbidden");
  });

  it("answers 404 for an unknown deployment and for another account's", async () => {
    const mine = await readyDeployment(api);
    const { api: other } = await deploymentsClient(server);
    expectError(await other.get(`/v1/deployments/${mine.deployment_id}`), 404, "not_found");
    expectError(await other.patch(`/v1/deployments/${mine.deployment_id}`, { name: "x" }), 404, "not_found");
    expectError(await other.delete(`/v1/deployments/${mine.deployment_id}`), 404, "not_found");
    expectError(await api.get("/v1/deployments/dep_0000000000nothere"), 404, "not_found");
    const list = await other.get("/v1/deployments");
    expect(list.body.data.map((d: any) => d.deployment_id)).to.not.include(mine.deployment_id);
  });

  it("serves its own OpenAPI document with Bearer security", async () => {
    const doc = (await client(server.deploymentsUrl).get("/v1/openapi.json")).body;
    expect(doc.info.title).to.equal("Deployments API");
    expect(doc.components.securitySchemes.bearer).to.deep.include({ type: "http", scheme: "bearer" });
    for (const [path, method] of [
      ["/v1/deployments", "post"],
      ["/v1/deployments", "get"],
      ["/v1/deployments/{deployment_id}", "get"],
      ["/v1/deployments/{deployment_id}", "patch"],
      ["/v1/deployments/{deployment_id}", "delete"],
    ]) {
      expect(doc.paths[path!]?.[method!], `${method} ${path}`).to.be.an("object");
    }
    expect(doc.paths["/v1/agents"]).to.equal(undefined);
    const core = (await client(server.url).get("/v1/openapi.json")).body;
    expect(core.paths["/v1/deployments"]).to.equal(undefined);
    expect(core.components.schemas["deployment-create"]).to.equal(undefined);
  });
});
