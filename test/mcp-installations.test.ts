import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { createAgent, newTenant } from "./support/api.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

/** MCP installations: a server and its toolset published as a new version, with each kind of authentication. */
describe("MCP installations", () => {
  let server: TestServer;
  let api: Client;
  let key: string;
  before(async () => {
    server = await startServer({ ROLE: "api" });
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server.close());

  const URL = "https://search.example.com/mcp";
  const installBody = (overrides: Record<string, unknown> = {}) => ({
    expectedAgentVersion: 1,
    idempotencyKey: randomUUID(),
    connector: { type: "custom", name: "search", url: URL },
    authentication: { type: "none" },
    ...overrides,
  });
  const install = (agentId: string, body: Record<string, unknown>, tenant = api) => tenant.post(`/v1/agents/${agentId}/mcp/installations`, body);
  const installed = async (agentId: string, body: Record<string, unknown>) => {
    const res = await install(agentId, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  };
  const vault = async (tenant = api) => (await tenant.post("/v1/vaults", { displayName: "Team" })).body.id as string;
  const bearerIn = async (vaultId: string, url = URL) => {
    const res = await api.post(`/v1/vaults/${vaultId}/credentials`, { displayName: "c", auth: { type: "static_bearer", mcpServerUrl: url, token: secret() } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  };
  const statusOf = async (agentId: string, name = "search") =>
    (await api.get(`/v1/agents/${agentId}/vaults`)).body.mcpServers.find((s: { name: string }) => s.name === name) as {
      status: string;
      credentialId: string | null;
    };
  const versionCount = async (agentId: string) => (await api.get(`/v1/agents/${agentId}/versions`)).body.data.length as number;

  it("none: a new version holds the server and its mcp_toolset with the default policy; the server is public", async () => {
    const agent = await createAgent(api);
    const res = await installed(agent.id, installBody());
    expect(res).to.deep.include({ object: "agent.mcp_installation", agentId: agent.id, version: 2 });
    expect(res.mcpServer).to.deep.equal({ type: "url", name: "search", url: URL });
    expect(res.authentication).to.deep.equal({ type: "none", vaultId: null, credentialId: null });
    expect(res.agent.version.version).to.equal(2);
    expect(res.agent.version.mcpServers).to.deep.equal([{ type: "url", name: "search", url: URL }]);
    expect(res.agent.tools).to.deep.equal([
      ...agent.tools,
      {
        type: "mcp_toolset",
        mcpServerName: "search",
        defaultConfig: { enabled: true, permissionPolicy: { type: "always_ask" } },
        configs: [],
        resources: false,
        prompts: false,
      },
    ]);
    expect((await api.get(`/v1/agents/${agent.id}`)).body, "the answer's agent is the agent as it stands").to.deep.equal(res.agent);
    expect(await statusOf(agent.id)).to.deep.include({ status: "public", credentialId: null });
  });

  it("static_bearer without vaultId: a new vault holds a new credential, attached; the server is connected; the token is sealed", async () => {
    const agent = await createAgent(api, { mcpServers: [{ type: "url", name: "docs", url: "https://docs.example.com/mcp" }] });
    const token = secret();
    const toolset = {
      defaultConfig: { permissionPolicy: { type: "always_allow" } },
      configs: [{ name: "query", permissionPolicy: { type: "always_deny" } }],
      resources: true,
    };
    const res = await installed(agent.id, installBody({ authentication: { type: "static_bearer", token }, toolset }));
    const { vaultId, credentialId } = res.authentication;
    expect(vaultId).to.match(/^vlt_/);
    expect(credentialId).to.match(/^vcr_/);
    expect(res.agent.version.mcpServers.map((s: { name: string }) => s.name)).to.deep.equal(["docs", "search"]);
    expect(res.agent.tools.at(-1)).to.deep.equal({
      type: "mcp_toolset",
      mcpServerName: "search",
      defaultConfig: { enabled: true, permissionPolicy: { type: "always_allow" } },
      configs: [{ name: "query", permissionPolicy: { type: "always_deny" } }],
      resources: true,
      prompts: false,
    });
    expect((await api.get(`/v1/vaults/${vaultId}`)).body.displayName).to.equal("Support bot · search");
    const credential = (await api.get(`/v1/vaults/${vaultId}/credentials/${credentialId}`)).body;
    expect(credential).to.deep.include({ displayName: "search", metadata: null, auth: { type: "static_bearer", mcpServerUrl: URL } });
    const store = server.core.stores.credentials;
    expect(await store.secretsOf((await store.get((await store.activeIn([vaultId]))[0].doc.orgId, vaultId, credentialId))!)).to.deep.equal({
      type: "static_bearer",
      token,
    });
    const vaults = (await api.get(`/v1/agents/${agent.id}/vaults`)).body;
    expect(vaults.vaults.map((v: { id: string }) => v.id)).to.deep.equal([vaultId]);
    expect(vaults.updatedAt, "the answer's updatedAt is the vault PUT's token").to.equal(res.agent.updatedAt);
    expect(await statusOf(agent.id)).to.deep.include({ status: "connected", credentialId });
    expect(await statusOf(agent.id, "docs")).to.deep.include({ status: "public" });
  });

  it("static_bearer with vaultId: the credential is stored in that vault, which is attached", async () => {
    const agent = await createAgent(api);
    const target = await vault();
    const res = await installed(agent.id, installBody({ authentication: { type: "static_bearer", token: secret(), vaultId: target } }));
    expect(res.authentication.vaultId).to.equal(target);
    expect((await api.get(`/v1/vaults/${target}/credentials`)).body.data.map((c: { id: string }) => c.id)).to.deep.equal([res.authentication.credentialId]);
    expect(await statusOf(agent.id)).to.deep.include({ status: "connected", credentialId: res.authentication.credentialId });
  });

  it("existing_vault: the vault holding the server's credential is attached (kept when already attached); the server is connected", async () => {
    const agent = await createAgent(api);
    const held = await vault();
    const credentialId = await bearerIn(held, "https://Search.Example.com:443/mcp/");
    const res = await installed(agent.id, installBody({ authentication: { type: "existing_vault", vaultId: held } }));
    expect(res.authentication).to.deep.equal({ type: "existing_vault", vaultId: held, credentialId });
    expect(await statusOf(agent.id)).to.deep.include({ status: "connected", credentialId });
    const again = await installed(
      agent.id,
      installBody({
        expectedAgentVersion: 2,
        connector: { type: "custom", name: "search2", url: URL + "/" },
        authentication: { type: "existing_vault", vaultId: held },
      }),
    );
    expect((await api.get(`/v1/agents/${agent.id}/vaults`)).body.vaults.map((v: { id: string }) => v.id)).to.deep.equal([held]);
    expect(again.authentication.credentialId).to.equal(credentialId);
  });

  it("existing_vault refusals: no matching credential, or a vault that is archived, is 409 invalid_state; nothing is published", async () => {
    const agent = await createAgent(api);
    const empty = await vault();
    await bearerIn(empty, "https://elsewhere.example.com/mcp");
    const none = await install(agent.id, installBody({ authentication: { type: "existing_vault", vaultId: empty } }));
    expect(none.status).to.equal(409);
    expect(none.body).to.deep.include({ error: "invalid_state" });
    expect(none.body.message).to.include("no active credential");
    const archived = await vault();
    await bearerIn(archived);
    await api.post(`/v1/vaults/${archived}/archive`);
    for (const authentication of [
      { type: "existing_vault", vaultId: archived },
      { type: "static_bearer", vaultId: archived, token: secret() },
    ]) {
      const res = await install(agent.id, installBody({ authentication }));
      expect(res.status, authentication.type).to.equal(409);
      expect(res.body.error).to.equal("invalid_state");
      expect(res.body.message).to.include("archived");
    }
    expect(await versionCount(agent.id)).to.equal(1);
    expect((await api.get(`/v1/agents/${agent.id}/vaults`)).body.vaults).to.deep.equal([]);
  });

  it("a credential of the agent's vaults already matching the URL: static_bearer and none are 409 conflict (the server would be in conflict, or not public)", async () => {
    const agent = await createAgent(api);
    const held = await vault();
    const existing = await bearerIn(held);
    const vaultsBefore = (await api.get("/v1/vaults?limit=100")).body.data.length;
    const put = await api.put(`/v1/agents/${agent.id}/vaults`, { vaultIds: [held], expectedUpdatedAt: agent.updatedAt });
    expect(put.status).to.equal(200);
    for (const authentication of [{ type: "static_bearer", token: secret() }, { type: "none" }]) {
      const res = await install(agent.id, installBody({ authentication }));
      expect(res.status, authentication.type).to.equal(409);
      expect(res.body.error).to.equal("conflict");
      expect(res.body.message).to.include(existing);
    }
    const other = await vault();
    await bearerIn(other);
    const twice = await install(agent.id, installBody({ authentication: { type: "existing_vault", vaultId: other } }));
    expect(twice.status).to.equal(409);
    expect(twice.body.message).to.include("conflict");
    expect(await versionCount(agent.id)).to.equal(1);
    expect((await api.get("/v1/vaults?limit=100")).body.data.length, "no vault created").to.equal(vaultsBefore + 1);
  });

  it("a stale expectedAgentVersion and a server name already present are 409 conflict", async () => {
    const agent = await createAgent(api, { mcpServers: [{ type: "url", name: "search", url: "https://old.example.com/mcp" }] });
    const stale = await install(agent.id, installBody({ expectedAgentVersion: 2, connector: { type: "custom", name: "fresh", url: URL } }));
    expect(stale.status).to.equal(409);
    expect(stale.body.error).to.equal("conflict");
    expect(stale.body.message).to.include("expectedAgentVersion 2 does not match the current version 1");
    const taken = await install(agent.id, installBody());
    expect(taken.status).to.equal(409);
    expect(taken.body.message).to.include("already has an MCP server named search");
    expect(await versionCount(agent.id)).to.equal(1);
  });

  it("another organization's agent or vault, or an unknown one, is 404", async () => {
    const agent = await createAgent(api);
    const other = await newTenant(server);
    const theirs = await vault(other);
    expect((await install(agent.id, installBody(), other)).status).to.equal(404);
    expect((await install("agt_missing", installBody())).status).to.equal(404);
    for (const vaultId of [theirs, "vlt_missing"]) {
      for (const authentication of [
        { type: "existing_vault", vaultId },
        { type: "static_bearer", vaultId, token: secret() },
      ]) {
        const res = await install(agent.id, installBody({ authentication }));
        expect(res.status, JSON.stringify(authentication.type)).to.equal(404);
        expect(res.body.error).to.equal("not_found");
      }
    }
    expect(await versionCount(agent.id)).to.equal(1);
  });

  it("bad bodies are 400 naming the field; a catalog connector is refused until a catalog exists", async () => {
    const agent = await createAgent(api);
    const cases: [Record<string, unknown>, string][] = [
      [{ connector: { type: "catalog", id: "github" } }, "connector.type: must be one of: custom"],
      [{ connector: { type: "custom", name: "bad name", url: URL } }, "connector.name: must match the pattern"],
      [{ connector: { type: "custom", name: "x", url: "ftp://x.example.com" } }, "connector.url: must match the pattern"],
      [{ connector: { type: "custom", name: "x", url: "https://user:pass@x.example.com/mcp" } }, "connector.url: must not contain credentials"],
      [{ authentication: { type: "oauth" } }, "authentication.type: must be one of: none, existing_vault, static_bearer"],
      [{ authentication: { type: "static_bearer" } }, "authentication.token: is required"],
      [{ authentication: { type: "static_bearer", token: "two words" } }, "authentication.token: must match the pattern"],
      [{ authentication: { type: "existing_vault" } }, "authentication.vaultId: is required"],
      [{ expectedAgentVersion: 0 }, "expectedAgentVersion: must be >= 1"],
      [{ idempotencyKey: "" }, "idempotencyKey: must not be empty"],
      [{ idempotencyKey: "x".repeat(256) }, "idempotencyKey: must be at most 255 characters"],
      [{ toolset: { configs: [{ name: "a" }, { name: "a" }] } }, "toolset.configs[1].name: must be unique"],
      [{ toolset: { mcpServerName: "other" } }, "toolset.mcpServerName: is not allowed"],
    ];
    for (const [overrides, message] of cases) {
      const res = await install(agent.id, installBody(overrides));
      expect(res.status, message).to.equal(400);
      expect(res.body.error).to.equal("validation_error");
      expect(res.body.message, JSON.stringify(overrides)).to.include(message);
    }
    for (const field of ["expectedAgentVersion", "idempotencyKey", "connector", "authentication"]) {
      const body: Record<string, unknown> = installBody();
      delete body[field];
      expect((await install(agent.id, body)).body.message).to.include(`${field}: is required`);
    }
    expect(await versionCount(agent.id)).to.equal(1);
  });

  it("without VAULT_ENCRYPTION_KEY a static_bearer installation is 503 and publishes nothing", async () => {
    const agent = await createAgent(api);
    const keyless = await startServer({ ROLE: "api", VAULT_ENCRYPTION_KEY: "" });
    try {
      const res = await install(agent.id, installBody({ authentication: { type: "static_bearer", token: secret() } }), client(keyless.url, key));
      expect(res.status).to.equal(503);
      expect(res.body.message).to.match(/VAULT_ENCRYPTION_KEY is not configured/);
      expect(await versionCount(agent.id)).to.equal(1);
    } finally {
      await keyless.close();
    }
  });
});
