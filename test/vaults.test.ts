import { expect } from "chai";
import { createAgent, newTenant } from "./support/api.js";
import { secret } from "./support/secrets.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

/** Vaults: create, list, get, archive, delete (only when empty, detaching it from agents). */
describe("vaults", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer({ ROLE: "api" });
    api = await newTenant(server);
  });
  after(async () => server.close());

  const newVault = async (displayName = "Team vault", extra: Record<string, unknown> = {}) => {
    const res = await api.post("/v1/vaults", { displayName, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  };
  const bearer = (url = "https://mcp.example.com/mcp") => ({ displayName: "Bearer", auth: { type: "static_bearer", mcpServerUrl: url, token: secret() } });

  it("creates a vault: displayName required, metadata defaulting to {}", async () => {
    const vault = await newVault("Support tools", { metadata: { team: "support" } });
    expect(vault).to.include({ type: "vault", displayName: "Support tools", archivedAt: null });
    expect(vault.id).to.match(/^vlt_/);
    expect(vault.metadata).to.deep.equal({ team: "support" });
    expect((await newVault("Plain")).metadata).to.deep.equal({});
    for (const body of [{}, { displayName: "" }, { displayName: "x".repeat(201) }, { displayName: "ok", extra: 1 }, { displayName: "ok", metadata: [] }]) {
      const res = await api.post("/v1/vaults", body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error).to.equal("validation_error");
    }
  });

  it("lists active vaults newest first, paged like the other lists", async () => {
    const tenant = await newTenant(server);
    const made = [];
    for (const name of ["one", "two", "three"]) made.push((await tenant.post("/v1/vaults", { displayName: name })).body);
    await tenant.post(`/v1/vaults/${made[1].id}/archive`);
    const all = (await tenant.get("/v1/vaults")).body;
    expect(all.data.map((v: { displayName: string }) => v.displayName)).to.deep.equal(["three", "one"]);
    expect(all.pagination).to.deep.equal({ limit: 50, offset: 0, hasMore: false });
    const first = (await tenant.get("/v1/vaults?limit=1")).body;
    expect(first.data.map((v: { id: string }) => v.id)).to.deep.equal([made[2].id]);
    expect(first.pagination.hasMore).to.equal(true);
    expect((await tenant.get("/v1/vaults?limit=1&offset=1")).body.data[0].id).to.equal(made[0].id);
    for (const q of ["?limit=0", "?limit=101", "?offset=-1", "?status=active"]) expect((await tenant.get(`/v1/vaults${q}`)).status, q).to.equal(400);
  });

  it("gets an active or archived vault; another organization's is 404", async () => {
    const vault = await newVault();
    expect((await api.get(`/v1/vaults/${vault.id}`)).body).to.deep.equal(vault);
    const archived = (await api.post(`/v1/vaults/${vault.id}/archive`)).body;
    expect(archived.archivedAt).to.be.a("string");
    expect((await api.get(`/v1/vaults/${vault.id}`)).body.archivedAt).to.equal(archived.archivedAt);
    const other = await newTenant(server);
    for (const res of [
      await other.get(`/v1/vaults/${vault.id}`),
      await other.post(`/v1/vaults/${vault.id}/archive`),
      await other.delete(`/v1/vaults/${vault.id}`),
      await api.get("/v1/vaults/vlt_missing"),
    ]) {
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal("not_found");
    }
  });

  it("archive is idempotent, and an archived vault takes no new credentials", async () => {
    const vault = await newVault();
    const first = (await api.post(`/v1/vaults/${vault.id}/archive`)).body;
    const again = await api.post(`/v1/vaults/${vault.id}/archive`);
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first);
    const refused = await api.post(`/v1/vaults/${vault.id}/credentials`, bearer());
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal("invalid_state");
  });

  it("deletes only an empty vault (archived credentials count), and detaches it from agents", async () => {
    const vault = await newVault();
    const credential = (await api.post(`/v1/vaults/${vault.id}/credentials`, bearer())).body;
    await api.post(`/v1/vaults/${vault.id}/credentials/${credential.id}/archive`);
    const refused = await api.delete(`/v1/vaults/${vault.id}`);
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal("conflict");
    expect(refused.body.message).to.match(/delete every credential first/);

    const agent = await createAgent(api);
    const org = (await orgOf(agent.id))!;
    const attached = await server.core.stores.agentVaults.attached(org, agent.id);
    expect(await server.core.stores.agentVaults.replace(org, agent.id, attached!, attached!.updatedAt, [vault.id])).to.not.equal("stale");

    expect((await api.delete(`/v1/vaults/${vault.id}/credentials/${credential.id}`)).status).to.equal(200);
    const deleted = await api.delete(`/v1/vaults/${vault.id}`);
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ object: "vault.deleted", id: vault.id, deleted: true });
    expect((await api.get(`/v1/vaults/${vault.id}`)).status).to.equal(404);
    const after = await server.core.stores.agentVaults.attached(org, agent.id);
    expect(after!.vaultIds).to.deep.equal([]);
    expect(after!.updatedAt.getTime()).to.be.greaterThan(attached!.updatedAt.getTime());
  });

  /** The organization of an agent, read from its record (tests hold keys, not organization ids). */
  async function orgOf(agentId: string): Promise<string | null> {
    const doc = await server.core.connections.mongo.db.collection<{ _id: string; orgId: string }>("agents").findOne({ _id: agentId });
    return doc?.orgId ?? null;
  }
});
