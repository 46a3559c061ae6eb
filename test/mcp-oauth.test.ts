/**
 * OAuth credentials at run time: an expired or refused access token refreshed at the token endpoint
 * with each client authentication method, the rotated secrets stored, one refresh for two processes
 * racing, and a refused refresh recorded as `reconnect` until the credential is rotated.
 */
import { expect } from "chai";
import { attach, mcpAgent, sessionOf, statuses, vaultWith } from "./support/mcp-agents.js";
import { startOAuthServer, type OAuthServer, type TokenEndpointAuth } from "./support/mcp-servers.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { sendText, settle } from "./support/sessions.js";

const HOUR = 3_600_000;

describe("MCP OAuth credentials at run time", () => {
  let server: TestServer;
  let api: Client;
  let orgId: string;
  const oauthServers: OAuthServer[] = [];
  before(async () => {
    server = await startServer({ MCP_TIMEOUT_MS: "5000" });
    orgId = await server.core.stores.organizations.ensureOrganization(`org-oauth-${process.pid}-${Date.now()}`);
    api = client(server.url, (await server.core.stores.organizations.createKey(orgId)).key);
  });
  after(async () => {
    await server?.close();
    await Promise.all(oauthServers.map((s) => s.close()));
  });

  async function oauthServer(tokenEndpointAuth: TokenEndpointAuth, clientSecret?: string) {
    const s = await startOAuthServer({ accessTokenTtlMs: HOUR, clientId: "agent-sessions", tokenEndpointAuth, ...(clientSecret ? { clientSecret } : {}) });
    oauthServers.push(s);
    return s;
  }

  /** An agent with the server as `tools`, a vault with an OAuth credential for it attached; `expiresAt` as the credential records it. */
  async function setUp(
    s: OAuthServer,
    opts: { expiresAt: Date; tokenEndpoint?: string; refreshToken?: string; type?: TokenEndpointAuth; clientSecret?: string; refresh?: boolean },
  ) {
    const pair = s.issue();
    const refresh = {
      tokenEndpoint: opts.tokenEndpoint ?? s.tokenUrl,
      clientId: "agent-sessions",
      refreshToken: opts.refreshToken ?? pair.refreshToken,
      tokenEndpointAuth: { type: opts.type ?? "none", ...(opts.clientSecret ? { clientSecret: opts.clientSecret } : {}) },
    };
    const auth = {
      type: "mcp_oauth",
      mcpServerUrl: s.url,
      accessToken: pair.accessToken,
      expiresAt: opts.expiresAt.toISOString(),
      ...(opts.refresh === false ? {} : { refresh }),
    };
    const agentId = await mcpAgent(api, [{ name: "tools", url: s.url }]);
    const { vaultId, credentialIds } = await vaultWith(api, auth);
    await attach(api, agentId, vaultId);
    return { agentId, vaultId, credentialId: credentialIds[0]!, sessionId: await sessionOf(api, agentId) };
  }

  async function echo(sessionId: string, text: string, turns: number) {
    await sendText(api, sessionId, `/tool mcp__tools__echo ${JSON.stringify({ text })}`);
    return (await settle(api, sessionId, turns)).filter((e) => e.type === "agent.mcp_tool_result").at(-1).payload;
  }

  for (const [type, clientSecret] of [["none"], ["client_secret_basic", secret()], ["client_secret_post", secret()]] as [TokenEndpointAuth, string?][]) {
    it(`an expired access token is refreshed before the request (${type}), and the rotated secrets are stored`, async () => {
      const s = await oauthServer(type, clientSecret);
      const { vaultId, credentialId, sessionId } = await setUp(s, { expiresAt: new Date(Date.now() - 1000), type, ...(clientSecret ? { clientSecret } : {}) });
      s.expireAccessTokens();
      const before = await api.get(`/v1/vaults/${vaultId}/credentials/${credentialId}`);

      const result = await echo(sessionId, "after refresh", 1);
      expect(result).to.deep.include({ is_error: false, content: [{ type: "text", text: "after refresh" }] });
      expect(s.refreshCalls).to.equal(1);
      const after = await api.get(`/v1/vaults/${vaultId}/credentials/${credentialId}`);
      expect(Date.parse(after.body.auth.expiresAt)).to.be.greaterThan(Date.now() + HOUR / 2);
      expect(after.body.updatedAt).to.not.equal(before.body.updatedAt);

      expect((await echo(sessionId, "again", 2)).is_error).to.equal(false);
      expect(s.refreshCalls, "the stored token is used until it expires").to.equal(1);
    });
  }

  it("a token the server refuses before its recorded expiry (401) is refreshed once and the request retried", async () => {
    const s = await oauthServer("none");
    const { sessionId } = await setUp(s, { expiresAt: new Date(Date.now() + HOUR) });
    expect((await echo(sessionId, "valid", 1)).is_error).to.equal(false);
    s.expireAccessTokens();
    const refused = s.auth.refused;
    const result = await echo(sessionId, "revoked early", 2);
    expect(result).to.deep.include({ is_error: false, content: [{ type: "text", text: "revoked early" }] });
    expect(s.auth.refused).to.be.greaterThan(refused);
    expect(s.refreshCalls).to.equal(1);
  });

  it("two processes needing a refresh of one credential at once make one refresh call", async () => {
    const s = await oauthServer("none");
    const { agentId } = await setUp(s, { expiresAt: new Date(Date.now() - 1000) });
    s.expireAccessTokens();
    const other = await startServer({ ROLE: "api" });
    try {
      const owner = { orgId, agentId };
      const ref = { name: "tools", url: s.url };
      const [a, b] = await Promise.all([server.core.inner.mcp.listTools(owner, ref), other.core.inner.mcp.listTools(owner, ref)]);
      expect(a.map((t) => t.name).sort()).to.deep.equal(b.map((t) => t.name).sort());
      expect(s.refreshCalls).to.equal(1);
    } finally {
      await other.close();
    }
  });

  it("a refused refresh is recorded: status reconnect, no further refresh calls, until the credential is rotated", async () => {
    const s = await oauthServer("none");
    const { agentId, vaultId, credentialId, sessionId } = await setUp(s, { expiresAt: new Date(Date.now() - 1000), refreshToken: secret() });
    expect(await statuses(api, agentId)).to.deep.equal({ tools: "connected" });

    // The turn's listing of the server's tools meets the expiry first: its refresh is refused, and the call then finds that recorded.
    const refused = `the credential ${credentialId} for the MCP server tools needs to be authorized again: its last refresh was refused`;
    const result = await echo(sessionId, "x", 1);
    expect(result).to.deep.include({ is_error: true, content: [{ type: "text", text: refused }] });
    expect(s.refreshCalls).to.equal(1);
    expect(await statuses(api, agentId)).to.deep.equal({ tools: "reconnect" });
    expect((await echo(sessionId, "y", 2)).content[0].text).to.equal(refused);
    expect(s.refreshCalls).to.equal(1);

    const pair = s.issue();
    const rotated = await api.patch(`/v1/vaults/${vaultId}/credentials/${credentialId}`, {
      auth: {
        type: "mcp_oauth",
        accessToken: pair.accessToken,
        expiresAt: new Date(pair.expiresAt).toISOString(),
        refresh: { refreshToken: pair.refreshToken },
      },
    });
    expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);
    expect(await statuses(api, agentId)).to.deep.equal({ tools: "connected" });
    expect((await echo(sessionId, "rotated", 3)).is_error).to.equal(false);
  });

  it("a token endpoint the outbound guard refuses: the call says so, and nothing is recorded as refused", async () => {
    const s = await oauthServer("none");
    const tokenEndpoint = s.tokenUrl.replace("127.0.0.1", "127.0.0.2");
    const { agentId, credentialId, sessionId } = await setUp(s, { expiresAt: new Date(Date.now() - 1000), tokenEndpoint });
    const result = await echo(sessionId, "x", 1);
    expect(result.content[0].text).to.equal(
      `the credential ${credentialId} for the MCP server tools could not be refreshed: the token endpoint is not reachable from this service: refused: 127.0.0.2 is a loopback address`,
    );
    expect(s.refreshCalls).to.equal(0);
    expect(await statuses(api, agentId)).to.deep.equal({ tools: "connected" });
  });

  it("an expired token without a refresh configuration: status reconnect, and the call says why", async () => {
    const s = await oauthServer("none");
    const { agentId, credentialId, sessionId } = await setUp(s, { expiresAt: new Date(Date.now() - 1000), refresh: false });
    expect(await statuses(api, agentId)).to.deep.equal({ tools: "reconnect" });
    const result = await echo(sessionId, "x", 1);
    expect(result.content[0].text).to.equal(
      `the credential ${credentialId} for the MCP server tools needs to be authorized again: its access token expired and it has no refresh token`,
    );
    expect(s.refreshCalls).to.equal(0);
  });
});
