import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { createAgent, newTenant } from "./support/api.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

/** An agent's vaults: the attached set, replaced whole under `expectedUpdatedAt`, and its servers' connection statuses. */
describe("agent vaults", () => {
  let server: TestServer;
  let api: Client;
  let key: string;
  before(async () => {
    server = await startServer({ ROLE: "api" });
    key = await server.newKey();
    api = client(server.url, key);
  });
  after(async () => server.close());

  const servers = [
    { type: "url", name: "search", url: "https://Search.Example.com:443/mcp/" },
    { type: "url", name: "calendar", url: "https://calendar.example.com/mcp" },
    { type: "url", name: "crm", url: "https://crm.example.com/mcp" },
    { type: "url", name: "docs", url: "https://docs.example.com/mcp" },
    { type: "url", name: "public", url: "https://public.example.com/mcp" },
  ];
  const vault = async (tenant = api) => (await tenant.post("/v1/vaults", { displayName: "v" })).body.id as string;
  const credential = async (vaultId: string, auth: Record<string, unknown>, tenant = api) => {
    const res = await tenant.post(`/v1/vaults/${vaultId}/credentials`, { displayName: "c", auth });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  };
  const bearerFor = (url: string) => ({ type: "static_bearer", mcpServerUrl: url, token: secret() });
  const oauthFor = (url: string, expiresAt: string, refresh: boolean) => ({
    type: "mcp_oauth",
    mcpServerUrl: url,
    accessToken: secret(),
    expiresAt,
    ...(refresh
      ? { refresh: { tokenEndpoint: "https://auth.example.com/token", clientId: "c1", refreshToken: secret(), tokenEndpointAuth: { type: "none" } } }
      : {}),
  });
  const put = (agentId: string, vaultIds: string[], expectedUpdatedAt: string, tenant = api) =>
    tenant.put(`/v1/agents/${agentId}/vaults`, { vaultIds, expectedUpdatedAt });

  it("without vaults: every server public, and the agent's updatedAt", async () => {
    const agent = await createAgent(api, { mcpServers: servers.slice(0, 2) });
    const res = await api.get(`/v1/agents/${agent.id}/vaults`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      object: "agent.vaults",
      agentId: agent.id,
      updatedAt: agent.updatedAt,
      vaults: [],
      mcpServers: servers.slice(0, 2).map((s) => ({ name: s.name, url: s.url, status: "public", credentialId: null })),
    });
  });

  it("statuses: connected by normalized URL, conflict, reconnect when expired without refresh, connected when refreshable", async () => {
    const agent = await createAgent(api, { mcpServers: servers });
    const [a, b] = [await vault(), await vault()];
    const search = await credential(a, bearerFor("https://search.example.com/mcp"));
    await credential(a, bearerFor("https://crm.example.com/mcp"));
    await credential(b, bearerFor("https://crm.example.com/mcp/"));
    await credential(b, oauthFor("https://calendar.example.com/mcp", "2020-01-01T00:00:00.000Z", false));
    const docs = await credential(b, oauthFor("https://docs.example.com/mcp", "2020-01-01T00:00:00.000Z", true));
    const res = await put(agent.id, [b, a], agent.updatedAt);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.vaults.map((v: { id: string }) => v.id)).to.deep.equal([b, a]);
    expect(Date.parse(res.body.updatedAt)).to.be.greaterThan(Date.parse(agent.updatedAt));
    const statuses = Object.fromEntries(
      res.body.mcpServers.map((s: { name: string; status: string; credentialId: string | null }) => [s.name, [s.status, s.credentialId]]),
    );
    expect(statuses).to.deep.equal({
      search: ["connected", search],
      calendar: ["reconnect", statuses.calendar[1]],
      crm: ["conflict", null],
      docs: ["connected", docs],
      public: ["public", null],
    });
    expect((await api.get(`/v1/agents/${agent.id}/vaults`)).body).to.deep.equal(res.body);
    expect((await api.get(`/v1/agents/${agent.id}`)).body.updatedAt, "the agent's updatedAt is the token").to.equal(res.body.updatedAt);
  });

  it("a credential sealed with a key this process lacks is unavailable", async () => {
    const agent = await createAgent(api, { mcpServers: servers.slice(0, 1) });
    const v = await vault();
    await credential(v, bearerFor("https://search.example.com/mcp"));
    await put(agent.id, [v], agent.updatedAt);
    const stranger = await startServer({ ROLE: "api", VAULT_ENCRYPTION_KEY: secret(randomBytes(32).toString("base64")) });
    try {
      const res = await client(stranger.url, key).get(`/v1/agents/${agent.id}/vaults`);
      expect(res.body.mcpServers[0].status).to.equal("unavailable");
    } finally {
      await stranger.close();
    }
  });

  it("a stale expectedUpdatedAt is 409 conflict; of two PUTs with one token exactly one wins; an empty set detaches all", async () => {
    const agent = await createAgent(api);
    const [a, b] = [await vault(), await vault()];
    const stale = await put(agent.id, [a], "2001-01-01T00:00:00.000Z");
    expect(stale.status).to.equal(409);
    expect(stale.body.error).to.equal("conflict");
    expect(stale.body.message).to.include(agent.updatedAt);
    const raced = await Promise.all([put(agent.id, [a], agent.updatedAt), put(agent.id, [b], agent.updatedAt)]);
    expect(raced.map((r) => r.status).sort()).to.deep.equal([200, 409]);
    const winner = raced.find((r) => r.status === 200)!.body;
    expect((await api.get(`/v1/agents/${agent.id}/vaults`)).body.vaults).to.deep.equal(winner.vaults);
    const cleared = await put(agent.id, [], winner.updatedAt);
    expect(cleared.status).to.equal(200);
    expect(cleared.body.vaults).to.deep.equal([]);
  });

  it("an archived vault: not newly attached, kept if already attached, and its credentials no longer match", async () => {
    const agent = await createAgent(api, { mcpServers: servers.slice(0, 1) });
    const [kept, late] = [await vault(), await vault()];
    await credential(kept, bearerFor("https://search.example.com/mcp"));
    const first = (await put(agent.id, [kept], agent.updatedAt)).body;
    expect(first.mcpServers[0].status).to.equal("connected");
    await api.post(`/v1/vaults/${kept}/archive`);
    await api.post(`/v1/vaults/${late}/archive`);
    const refused = await put(agent.id, [kept, late], first.updatedAt);
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal("invalid_state");
    expect(refused.body.message).to.include(late);
    const still = await put(agent.id, [kept], first.updatedAt);
    expect(still.status).to.equal(200);
    expect(still.body.vaults[0].archivedAt).to.be.a("string");
    expect(still.body.mcpServers[0].status).to.equal("public");
  });

  it("unknown or another organization's vault or agent is 404; bad bodies are 400", async () => {
    const agent = await createAgent(api);
    const other = await newTenant(server);
    const theirs = await vault(other);
    expect((await put(agent.id, [theirs], agent.updatedAt)).status).to.equal(404);
    expect((await put(agent.id, ["vlt_missing"], agent.updatedAt)).status).to.equal(404);
    expect((await other.get(`/v1/agents/${agent.id}/vaults`)).status).to.equal(404);
    expect((await put(agent.id, [], agent.updatedAt, other)).status).to.equal(404);
    for (const body of [
      { vaultIds: [] },
      { expectedUpdatedAt: agent.updatedAt },
      { vaultIds: ["a", "a"], expectedUpdatedAt: agent.updatedAt },
      { vaultIds: [], expectedUpdatedAt: "yesterday" },
      { vaultIds: [], expectedUpdatedAt: agent.updatedAt, extra: 1 },
    ]) {
      const res = await api.put(`/v1/agents/${agent.id}/vaults`, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error).to.equal("validation_error");
    }
  });
});
