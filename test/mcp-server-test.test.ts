/** POST /v1/agents/{id}/mcp/{serverName}/test: a fresh connection with the vault's credential, the tools listed, and what a failure is. */
import { expect } from "chai";
import { attach, mcpAgent, vaultWith } from "./support/mcp-agents.js";
import {
  startBearerServer,
  startEverythingServer,
  startOAuthServer,
  startSseOnlyServer,
  type BearerServer,
  type McpTestServer,
  type OAuthServer,
} from "./support/mcp-servers.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

describe("testing an agent's MCP server", () => {
  const token = secret();
  let bearer: BearerServer;
  let everything: McpTestServer;
  let sseOnly: McpTestServer;
  let oauth: OAuthServer;
  let server: TestServer;
  let api: Client;
  before(async () => {
    [bearer, everything, sseOnly, oauth] = await Promise.all([
      startBearerServer({ token }),
      startEverythingServer(),
      startSseOnlyServer(),
      startOAuthServer({ accessTokenTtlMs: 3_600_000, clientId: "c", tokenEndpointAuth: "none" }),
    ]);
    server = await startServer({ ROLE: "api", MCP_TIMEOUT_MS: "2000" });
    api = client(server.url, await server.newKey());
  });
  after(async () => {
    await server?.close();
    await Promise.all([bearer, everything, sseOnly, oauth].map((s) => s?.close()));
  });
  const test = (agentId: string, name: string, tenant = api) => tenant.post(`/v1/agents/${agentId}/mcp/${name}/test`, {});
  const bearerAuth = (t = token) => ({ type: "static_bearer", mcpServerUrl: bearer.url, token: t });

  it("a public server: connected over Streamable HTTP with no credential, every tool listed", async () => {
    const agentId = await mcpAgent(api, [{ name: "everything", url: everything.url }]);
    const res = await test(agentId, "everything");
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({
      object: "agent.mcp_server_test",
      agentId,
      agentVersion: 1,
      serverName: "everything",
      url: everything.url,
      status: "public",
      credentialId: null,
      transport: "streamable_http",
    });
    expect(res.body.tools.map((t: { name: string }) => t.name)).to.include("echo");
  });

  it("a server behind a bearer token: the vault's credential is sent, and the status is connected", async () => {
    const agentId = await mcpAgent(api, [{ name: "tools", url: bearer.url }]);
    const { vaultId, credentialIds } = await vaultWith(api, bearerAuth());
    await attach(api, agentId, vaultId);
    const res = await test(agentId, "tools");
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ status: "connected", credentialId: credentialIds[0], transport: "streamable_http" });
    expect(res.body.tools.map((t: { name: string }) => t.name).sort()).to.deep.equal(["add", "echo", "fail", "slow"]);
    expect(bearer.auth.headers.at(-1)).to.equal(`Bearer ${token}`);
  });

  it("a server on the legacy SSE transport only reports transport sse", async () => {
    const agentId = await mcpAgent(api, [{ name: "legacy", url: sseOnly.url }]);
    const res = await test(agentId, "legacy");
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.transport).to.equal("sse");
  });

  it("an expired OAuth token is refreshed for the test", async () => {
    const pair = oauth.issue();
    oauth.expireAccessTokens();
    const agentId = await mcpAgent(api, [{ name: "tools", url: oauth.url }]);
    const refresh = { tokenEndpoint: oauth.tokenUrl, clientId: "c", refreshToken: pair.refreshToken, tokenEndpointAuth: { type: "none" } };
    const { vaultId } = await vaultWith(api, {
      type: "mcp_oauth",
      mcpServerUrl: oauth.url,
      accessToken: pair.accessToken,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
      refresh,
    });
    await attach(api, agentId, vaultId);
    const res = await test(agentId, "tools");
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.status).to.equal("connected");
    expect(oauth.refreshCalls).to.equal(1);
  });

  it("an OAuth token the server refuses before its recorded expiry is refreshed, and the test retried", async () => {
    const pair = oauth.issue();
    const before = oauth.refreshCalls;
    const agentId = await mcpAgent(api, [{ name: "tools", url: oauth.url }]);
    const refresh = { tokenEndpoint: oauth.tokenUrl, clientId: "c", refreshToken: pair.refreshToken, tokenEndpointAuth: { type: "none" } };
    const { vaultId } = await vaultWith(api, {
      type: "mcp_oauth",
      mcpServerUrl: oauth.url,
      accessToken: pair.accessToken,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      refresh,
    });
    await attach(api, agentId, vaultId);
    oauth.expireAccessTokens();
    const res = await test(agentId, "tools");
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(oauth.refreshCalls - before).to.equal(1);
  });

  it("502 when the server refuses the credential or cannot be reached; 409 when several credentials match", async () => {
    const gone = await startBearerServer({ token });
    const goneUrl = gone.url;
    await gone.close();
    const agentId = await mcpAgent(api, [
      { name: "tools", url: bearer.url },
      { name: "gone", url: goneUrl },
    ]);
    const wrong = await vaultWith(api, bearerAuth(secret()));
    await attach(api, agentId, wrong.vaultId);
    const refused = await test(agentId, "tools");
    expect(refused.status).to.equal(502);
    expect(refused.body).to.deep.include({ error: "server_error", message: "the MCP server tools could not be used (HTTP 401)" });
    const unreachable = await test(agentId, "gone");
    expect(unreachable.status).to.equal(502);
    expect(unreachable.body.message).to.match(/^the MCP server gone could not be used/);

    const twice = await vaultWith(api, bearerAuth());
    await attach(api, agentId, wrong.vaultId, twice.vaultId);
    const conflict = await test(agentId, "tools");
    expect(conflict.status).to.equal(409);
    expect(conflict.body.message).to.match(/^several credentials of the agent's vaults match the MCP server tools/);
  });

  it("the outbound guard: without an allow-list naming loopback, a loopback server is 502 and never reached", async () => {
    const guarded = await startServer({ ROLE: "api", OUTBOUND_ALLOWED_NETWORKS: "" });
    try {
      const tenant = client(guarded.url, await guarded.newKey());
      const agentId = await mcpAgent(tenant, [{ name: "tools", url: bearer.url }]);
      await attach(tenant, agentId, (await vaultWith(tenant, bearerAuth())).vaultId);
      const seen = bearer.auth.headers.length;
      const res = await test(agentId, "tools", tenant);
      expect(res.status).to.equal(502);
      expect(res.body.message).to.equal("the MCP server tools is not reachable from this service: refused: 127.0.0.1 is a loopback address");
      expect(bearer.auth.headers.length).to.equal(seen);
    } finally {
      await guarded.close();
    }
  });

  it("404 for a server the latest version does not have, and for another organization's agent; 400 for a malformed name", async () => {
    const agentId = await mcpAgent(api, [{ name: "everything", url: everything.url }]);
    const missing = await test(agentId, "other");
    expect(missing.status).to.equal(404);
    expect(missing.body.message).to.equal("MCP server other of the agent's latest version not found");
    const stranger = client(server.url, await server.newKey());
    expect((await test(agentId, "everything", stranger)).status).to.equal(404);
    expect((await test(agentId, "bad.name")).status).to.equal(400);
  });
});
