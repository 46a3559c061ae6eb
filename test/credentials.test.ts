import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { newTenant } from "./support/api.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

/** Credentials: secrets accepted, sealed at rest, rotated, and never returned. */
describe("vault credentials", () => {
  let server: TestServer;
  let api: Client;
  let key: string;
  let vaultId: string;
  before(async () => {
    server = await startServer({ ROLE: "api" });
    key = await server.newKey();
    api = client(server.url, key);
    vaultId = (await api.post("/v1/vaults", { displayName: "Credentials" })).body.id;
  });
  after(async () => server.close());

  const base = () => `/v1/vaults/${vaultId}/credentials`;
  const raw = (id: string) => server.core.connections.mongo.db.collection<{ _id: string }>("vault_credentials").findOne({ _id: id });
  const bearer = (token = secret()) => ({ displayName: "Search MCP", auth: { type: "static_bearer", mcpServerUrl: "https://search.example.com/mcp", token } });
  const oauth = (method: "none" | "client_secret_basic" | "client_secret_post" = "client_secret_post") => {
    const s = { accessToken: secret(), refreshToken: secret(), clientSecret: secret() };
    const tokenEndpointAuth = method === "none" ? { type: method } : { type: method, clientSecret: s.clientSecret };
    const body = {
      displayName: "Calendar",
      metadata: { owner: "ops" },
      auth: {
        type: "mcp_oauth",
        mcpServerUrl: "https://calendar.example.com/mcp",
        accessToken: s.accessToken,
        expiresAt: "2030-01-01T00:00:00.000Z",
        refresh: { tokenEndpoint: "https://auth.example.com/token", clientId: "client-1", refreshToken: s.refreshToken, tokenEndpointAuth },
      },
    };
    return { body, s };
  };
  const create = async (body: unknown) => {
    const res = await api.post(base(), body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  };
  const secretsOf = async (credential: { id: string }) =>
    server.core.stores.credentials.secretsOf(
      (await server.core.stores.credentials.get(((await raw(credential.id)) as unknown as { orgId: string }).orgId, vaultId, credential.id))!,
    );

  it("a static bearer credential: auth answered without its token, the token sealed at rest", async () => {
    const token = secret();
    const credential = await create(bearer(token));
    expect(credential).to.include({ type: "vault_credential", vaultId, displayName: "Search MCP", metadata: null, archivedAt: null });
    expect(credential.id).to.match(/^vcr_/);
    expect(credential.auth).to.deep.equal({ type: "static_bearer", mcpServerUrl: "https://search.example.com/mcp" });
    const stored = JSON.stringify(await raw(credential.id));
    expect(stored.includes(token), "the token in the stored document").to.equal(false);
    expect(stored).to.include('"sealed"');
    expect(await secretsOf(credential)).to.deep.equal({ type: "static_bearer", token });
  });

  it("an OAuth credential with each client authentication: refresh shown without its secrets", async () => {
    for (const method of ["none", "client_secret_basic", "client_secret_post"] as const) {
      const { body, s } = oauth(method);
      const credential = await create(body);
      expect(credential.metadata).to.deep.equal({ owner: "ops" });
      expect(credential.auth).to.deep.equal({
        type: "mcp_oauth",
        mcpServerUrl: "https://calendar.example.com/mcp",
        expiresAt: "2030-01-01T00:00:00.000Z",
        refresh: { tokenEndpoint: "https://auth.example.com/token", clientId: "client-1", tokenEndpointAuth: { type: method } },
      });
      expect(await secretsOf(credential)).to.deep.equal({
        type: "mcp_oauth",
        accessToken: s.accessToken,
        refreshToken: s.refreshToken,
        clientSecret: method === "none" ? null : s.clientSecret,
      });
    }
    const { body } = oauth();
    const { refresh: _, ...withoutRefresh } = body.auth;
    expect((await create({ ...body, auth: withoutRefresh })).auth.refresh).to.equal(null);
  });

  it("refuses bad bodies with 400, naming the path and never echoing a value", async () => {
    const token = secret();
    const { body } = oauth();
    const refresh = body.auth.refresh;
    const cases: [unknown, RegExp][] = [
      [{ auth: bearer(token).auth }, /displayName/],
      [{ displayName: "x" }, /auth/],
      [{ displayName: "x", auth: { type: "basic", mcpServerUrl: "https://a.example", token } }, /auth/],
      [{ displayName: "x", auth: { type: "static_bearer", mcpServerUrl: "https://a.example" } }, /token/],
      [{ displayName: "x", auth: { type: "static_bearer", mcpServerUrl: "https://a.example", token: `${token} with spaces` } }, /token/],
      [{ displayName: "x", auth: { type: "static_bearer", mcpServerUrl: "ftp://a.example", token } }, /mcpServerUrl/],
      [
        { displayName: "x", auth: { type: "static_bearer", mcpServerUrl: `https://user:${token}@a.example/mcp`, token } },
        /mcpServerUrl: must not contain credentials/,
      ],
      [{ displayName: "x", auth: { ...body.auth, expiresAt: "tomorrow" } }, /expiresAt/],
      [
        { displayName: "x", auth: { ...body.auth, refresh: { ...refresh, tokenEndpointAuth: { type: "client_secret_basic" } } } },
        /clientSecret: is required for type client_secret_basic/,
      ],
      [
        { displayName: "x", auth: { ...body.auth, refresh: { ...refresh, tokenEndpointAuth: { type: "none", clientSecret: token } } } },
        /clientSecret: must be absent for type none/,
      ],
      [{ displayName: "x", auth: { ...bearer(token).auth, accessToken: token } }, /auth/],
    ];
    for (const [sent, message] of cases) {
      const res = await api.post(base(), sent);
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal("validation_error");
      expect(res.body.message).to.match(message);
    }
  });

  it("lists active credentials newest first; gets archived ones; another organization's or vault's is 404", async () => {
    const tenant = await newTenant(server);
    const vault = (await tenant.post("/v1/vaults", { displayName: "List" })).body.id;
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await tenant.post(`/v1/vaults/${vault}/credentials`, bearer())).body);
    await tenant.post(`/v1/vaults/${vault}/credentials/${made[0].id}/archive`);
    const list = (await tenant.get(`/v1/vaults/${vault}/credentials?limit=1`)).body;
    expect(list.data.map((c: { id: string }) => c.id)).to.deep.equal([made[2].id]);
    expect(list.pagination).to.deep.equal({ limit: 1, offset: 0, hasMore: true });
    expect((await tenant.get(`/v1/vaults/${vault}/credentials?offset=1`)).body.data.map((c: { id: string }) => c.id)).to.deep.equal([made[1].id]);
    expect((await tenant.get(`/v1/vaults/${vault}/credentials/${made[0].id}`)).body.archivedAt).to.be.a("string");
    const misses = [
      await api.get(`/v1/vaults/${vault}/credentials/${made[1].id}`),
      await api.get(`/v1/vaults/${vault}/credentials`),
      await tenant.get(`/v1/vaults/${vaultId}/credentials/${made[1].id}`),
      await tenant.patch(`/v1/vaults/${vault}/credentials/vcr_missing`, { displayName: "x" }),
      await api.delete(`/v1/vaults/${vault}/credentials/${made[1].id}`),
    ];
    for (const res of misses) expect(res.status).to.equal(404);
  });

  it("PATCH changes display fields and rotates secrets; auth.type is immutable; an archived credential is read-only", async () => {
    const credential = await create(bearer());
    const renamed = await api.patch(`${base()}/${credential.id}`, { displayName: "Renamed", metadata: { a: 1 } });
    expect(renamed.status).to.equal(200);
    expect(renamed.body).to.include({ displayName: "Renamed" });
    expect(renamed.body.metadata).to.deep.equal({ a: 1 });
    const token = secret();
    expect((await api.patch(`${base()}/${credential.id}`, { auth: { type: "static_bearer", token } })).status).to.equal(200);
    expect(await secretsOf(credential)).to.deep.equal({ type: "static_bearer", token });
    const wrongType = await api.patch(`${base()}/${credential.id}`, { auth: { type: "mcp_oauth", accessToken: secret() } });
    expect(wrongType.status).to.equal(400);
    expect(wrongType.body.message).to.match(/auth.type: is immutable/);
    for (const body of [{}, { auth: { type: "static_bearer" } }, { auth: { type: "static_bearer", token, mcpServerUrl: "https://other.example" } }]) {
      expect((await api.patch(`${base()}/${credential.id}`, body)).status, JSON.stringify(body)).to.equal(400);
    }

    const { body, s } = oauth();
    const o = await create(body);
    const accessToken = secret();
    const rotated = await api.patch(`${base()}/${o.id}`, { auth: { type: "mcp_oauth", accessToken, expiresAt: "2031-06-01T00:00:00.000Z" } });
    expect(rotated.body.auth.expiresAt).to.equal("2031-06-01T00:00:00.000Z");
    expect(await secretsOf(o)).to.deep.equal({ type: "mcp_oauth", accessToken, refreshToken: s.refreshToken, clientSecret: s.clientSecret });
    const refreshToken = secret();
    await api.patch(`${base()}/${o.id}`, { auth: { type: "mcp_oauth", refresh: { refreshToken } } });
    expect(await secretsOf(o)).to.deep.equal({ type: "mcp_oauth", accessToken, refreshToken, clientSecret: s.clientSecret });
    const clientSecret = secret();
    const newClientSecret = await api.patch(`${base()}/${o.id}`, { auth: { type: "mcp_oauth", refresh: { tokenEndpointAuth: { clientSecret } } } });
    expect(newClientSecret.status).to.equal(200);
    expect(JSON.stringify(newClientSecret.body)).not.to.include(clientSecret);
    expect(newClientSecret.body.auth.refresh.tokenEndpointAuth).to.deep.equal({ type: "client_secret_post" });
    expect(await secretsOf(o)).to.deep.equal({ type: "mcp_oauth", accessToken, refreshToken, clientSecret });
    const otherMethod = await api.patch(`${base()}/${o.id}`, {
      auth: { type: "mcp_oauth", refresh: { tokenEndpointAuth: { type: "client_secret_basic", clientSecret: secret() } } },
    });
    expect(otherMethod.status).to.equal(400);
    expect(otherMethod.body.message).to.equal("auth.refresh.tokenEndpointAuth.type: is immutable; this credential's is client_secret_post");
    for (const refresh of [{}, { tokenEndpointAuth: {} }, { tokenEndpointAuth: { type: "none", clientSecret: secret() } }]) {
      expect((await api.patch(`${base()}/${o.id}`, { auth: { type: "mcp_oauth", refresh } })).status, JSON.stringify(refresh)).to.equal(400);
    }
    const publicClient = await create(oauth("none").body);
    const noSecret = await api.patch(`${base()}/${publicClient.id}`, {
      auth: { type: "mcp_oauth", refresh: { tokenEndpointAuth: { clientSecret: secret() } } },
    });
    expect(noSecret.status).to.equal(400);
    expect(noSecret.body.message).to.match(/^auth.refresh.tokenEndpointAuth: the credential's token endpoint authentication is none/);
    expect(await secretsOf(o)).to.deep.equal({ type: "mcp_oauth", accessToken, refreshToken, clientSecret });
    expect((await api.patch(`${base()}/${o.id}`, { auth: { type: "mcp_oauth" } })).status).to.equal(400);

    const first = (await api.post(`${base()}/${o.id}/archive`)).body;
    expect((await api.post(`${base()}/${o.id}/archive`)).body).to.deep.equal(first);
    const readOnly = await api.patch(`${base()}/${o.id}`, { displayName: "late" });
    expect(readOnly.status).to.equal(409);
    expect(readOnly.body.error).to.equal("invalid_state");
  });

  it("DELETE removes the record and its stored value", async () => {
    const credential = await create(bearer());
    const res = await api.delete(`${base()}/${credential.id}`);
    expect(res.body).to.deep.equal({ object: "vault_credential.deleted", id: credential.id, deleted: true });
    expect(await raw(credential.id)).to.equal(null);
    expect((await api.get(`${base()}/${credential.id}`)).status).to.equal(404);
  });

  it("keys rotate: an older key still opens what it sealed, a rotation reseals under the new key; a missing key is 503", async () => {
    const { body, s } = oauth();
    const credential = await create(body);
    const newKey = secret(randomBytes(32).toString("base64"));
    const rotatedServer = await startServer({
      ROLE: "api",
      VAULT_ENCRYPTION_KEY: newKey,
      VAULT_DECRYPTION_KEYS: server.core.process.config.vaultKeys!.current.toString("base64"),
    });
    const stranger = await startServer({ ROLE: "api", VAULT_ENCRYPTION_KEY: secret(randomBytes(32).toString("base64")) });
    const keyless = await startServer({ ROLE: "api", VAULT_ENCRYPTION_KEY: "" });
    try {
      const sealedBy = async () => ((await raw(credential.id)) as unknown as { sealed: { k: string } }).sealed.k;
      const before = await sealedBy();
      const path = `${base()}/${credential.id}`;
      const accessToken = secret();
      expect((await api.patch(path, { auth: { type: "mcp_oauth", accessToken } })).status).to.equal(200);
      expect((await client(rotatedServer.url, key).patch(path, { auth: { type: "mcp_oauth", expiresAt: "2032-01-01T00:00:00.000Z" } })).status).to.equal(200);
      expect(await sealedBy(), "resealed under the new key").to.not.equal(before);
      const store = rotatedServer.core.stores.credentials;
      expect(await store.secretsOf((await store.get(await orgId(), vaultId, credential.id))!)).to.deep.include({ accessToken, refreshToken: s.refreshToken });
      const refused = await client(stranger.url, key).patch(path, { auth: { type: "mcp_oauth", accessToken: secret() } });
      expect(refused.status).to.equal(503);
      expect(refused.body.message).to.match(/VAULT_DECRYPTION_KEYS/);
      const noKey = await client(keyless.url, key).post(base(), bearer());
      expect(noKey.status).to.equal(503);
      expect(noKey.body.message).to.match(/VAULT_ENCRYPTION_KEY is not configured/);
    } finally {
      await Promise.all([rotatedServer.close(), stranger.close(), keyless.close()]);
    }
  });

  async function orgId(): Promise<string> {
    return (await server.core.connections.mongo.db.collection<{ _id: string; orgId: string }>("vaults").findOne({ _id: vaultId }))!.orgId;
  }
});
