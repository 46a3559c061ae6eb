import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { createAgent } from "./support/api.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

/** MCP installations under retries: one key, one installation, whatever happens to the requests carrying it. */
describe("MCP installations: idempotency", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer({ ROLE: "api" });
    api = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  const URL = "https://search.example.com/mcp";
  const bearerBody = (overrides: Record<string, unknown> = {}) => ({
    expectedAgentVersion: 1,
    idempotencyKey: randomUUID(),
    connector: { type: "custom", name: "search", url: URL },
    authentication: { type: "static_bearer", token: secret() },
    ...overrides,
  });
  const install = (agentId: string, body: Record<string, unknown>) => api.post(`/v1/agents/${agentId}/mcp/installations`, body);
  const installed = async (agentId: string, body: Record<string, unknown>) => {
    const res = await install(agentId, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  };
  const versionCount = async (agentId: string) => (await api.get(`/v1/agents/${agentId}/versions`)).body.data.length as number;
  const credentialCount = async (vaultId: string) => (await api.get(`/v1/vaults/${vaultId}/credentials`)).body.data.length as number;
  const db = () => server.core.connections.mongo.db;

  it("a retry returns the first answer, even after the agent changed, and installs nothing twice", async () => {
    const agent = await createAgent(api);
    const body = bearerBody();
    const first = await installed(agent.id, body);
    expect(await installed(agent.id, body)).to.deep.equal(first);
    const patched = await api.patch(`/v1/agents/${agent.id}`, { expectedVersion: 2, systemPrompt: "Changed." });
    expect(patched.status).to.equal(200);
    const { idempotencyKey, ...rest } = body;
    expect(await installed(agent.id, { ...rest, idempotencyKey }), "fields in another order are the same request").to.deep.equal(first);
    expect(await versionCount(agent.id)).to.equal(3);
    expect(await credentialCount(first.authentication.vaultId)).to.equal(1);
    expect((await api.get(`/v1/agents/${agent.id}/vaults`)).body.vaults).to.have.length(1);
  });

  it("the same key with another request is 409 conflict; a key belongs to one agent", async () => {
    const agent = await createAgent(api);
    const body = bearerBody();
    await installed(agent.id, body);
    for (const changed of [
      { ...body, authentication: { type: "static_bearer", token: secret() } },
      { ...body, expectedAgentVersion: 2 },
      { ...body, toolset: {} },
    ]) {
      const res = await install(agent.id, changed);
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal("conflict");
      expect(res.body.message).to.include("idempotencyKey was already used for a different installation request");
    }
    const another = await createAgent(api);
    expect((await installed(another.id, body)).agentId).to.equal(another.id);
  });

  it("requests with one key at once: one version, one vault, one credential, one answer", async () => {
    const agent = await createAgent(api);
    const body = bearerBody();
    const answers = await Promise.all([1, 2, 3, 4].map(() => install(agent.id, body)));
    expect(answers.map((r) => r.status)).to.deep.equal([201, 201, 201, 201]);
    for (const res of answers.slice(1)) expect(res.body).to.deep.equal(answers[0].body);
    expect(await versionCount(agent.id)).to.equal(2);
    expect(await credentialCount(answers[0].body.authentication.vaultId)).to.equal(1);
    const vaults = (await api.get(`/v1/agents/${agent.id}/vaults`)).body;
    expect(vaults.vaults.map((v: { id: string }) => v.id)).to.deep.equal([answers[0].body.authentication.vaultId]);
    expect(vaults.mcpServers[0].status).to.equal("connected");
  });

  it("a retry finishes an installation that stopped after its version was inserted, creating what it planned", async () => {
    const agent = await createAgent(api);
    const body = bearerBody();
    const first = await installed(agent.id, body);
    const { vaultId, credentialId } = first.authentication;
    // Undo everything after the version's insert, as if the process had died right after it.
    const v1 = await db().collection<{ _id: string }>("agent_versions").findOne({ agentId: agent.id, version: 1 });
    await db()
      .collection<{ _id: string }>("agents")
      .updateOne({ _id: agent.id }, { $set: { version: 1, current: v1, vaultIds: [], updatedAt: new Date(agent.updatedAt) } });
    await db()
      .collection<{ _id: string }>("agent_vault_claims")
      .deleteMany({ _id: { $regex: `^${agent.id}@` } });
    await db().collection<{ _id: string }>("vault_credentials").deleteOne({ _id: credentialId });
    await db().collection<{ _id: string }>("vaults").deleteOne({ _id: vaultId });
    await db()
      .collection<{ _id: string; agentId: string }>("mcp_installations")
      .updateOne({ agentId: agent.id }, { $set: { answer: null } });
    expect((await api.get(`/v1/agents/${agent.id}`)).body.version.version).to.equal(1);

    const resumed = await installed(agent.id, body);
    expect(resumed.version).to.equal(2);
    expect(resumed.authentication).to.deep.equal(first.authentication);
    expect(resumed.agent.version).to.deep.equal(first.agent.version);
    expect(await versionCount(agent.id)).to.equal(2);
    expect((await api.get(`/v1/vaults/${vaultId}/credentials/${credentialId}`)).status).to.equal(200);
    const vaults = (await api.get(`/v1/agents/${agent.id}/vaults`)).body;
    expect(vaults.vaults.map((v: { id: string }) => v.id)).to.deep.equal([vaultId]);
    expect(vaults.mcpServers[0]).to.deep.include({ status: "connected", credentialId });
    expect(await installed(agent.id, body), "and its answer is kept from then on").to.deep.equal(resumed);
  });

  it("a refusal is not remembered: the same request with its key succeeds once the cause is gone", async () => {
    const agent = await createAgent(api);
    const vaultId = (await api.post("/v1/vaults", { displayName: "Later" })).body.id as string;
    const body = bearerBody({ authentication: { type: "existing_vault", vaultId } });
    const refused = await install(agent.id, body);
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal("invalid_state");
    const created = await api.post(`/v1/vaults/${vaultId}/credentials`, {
      displayName: "c",
      auth: { type: "static_bearer", mcpServerUrl: URL, token: secret() },
    });
    const answer = await installed(agent.id, body);
    expect(answer.authentication).to.deep.equal({ type: "existing_vault", vaultId, credentialId: created.body.id });
  });

  it("records expire after a day: the key is then new, and a stale request is refused", async () => {
    const agent = await createAgent(api);
    const body = bearerBody();
    await installed(agent.id, body);
    const records = db().collection<{ _id: string; agentId: string; createdAt: Date }>("mcp_installations");
    expect(await server.core.services.mcpInstallations.expire()).to.equal(0);
    await records.updateOne({ agentId: agent.id }, { $set: { createdAt: new Date(Date.now() - 25 * 3600 * 1000) } });
    expect(await server.core.services.mcpInstallations.expire()).to.be.at.least(1);
    expect(await records.findOne({ agentId: agent.id })).to.equal(null);
    const again = await install(agent.id, body);
    expect(again.status).to.equal(409);
    expect(again.body.message).to.include("expectedAgentVersion 1 does not match the current version 2");
    expect(await versionCount(agent.id)).to.equal(2);
  });
});
