import { expect } from "chai";
import { deploymentsClient, readyDeployment, runTool } from "./support/deployments.js";
import { expectError, expectValidation } from "./support/expect.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

const skill = (name: string, body = "Do the thing.") => `---\nname: ${name}\ndescription: Use when ${name} is asked for.\n---\n${body}\n`;

describe("deployments: update", () => {
  let server: TestServer;
  let api: Client;
  let coreKey: string;

  before(async () => {
    server = await startServer();
    const org = `org-update-${Date.now()}`;
    ({ api } = await deploymentsClient(server, undefined, org));
    coreKey = await server.newKey(org);
  });
  after(async () => server.close());

  /** The deployment's agent as the core interface shows it (same account). */
  async function agentOf(deploymentId: string): Promise<any> {
    const core = client(server.url, coreKey);
    const agents = (await core.get("/v1/agents?limit=100")).body.data as any[];
    const agent = agents.find((a) => a.metadata?.deploymentId === deploymentId);
    expect(agent, "the deployment's agent").to.be.an("object");
    const full = (await core.get(`/v1/agents/${agent.id}`)).body;
    return { ...full.version, id: full.id, tools: full.tools, version: full.version.version };
  }

  it("replaces scalars, keeps omitted fields, and moves the agent to a new version", async () => {
    const d = await readyDeployment(api, { skills: [{ name: "greet", source: "inline", content: skill("greet") }] });
    const before = await agentOf(d.deployment_id);
    const res = await api.patch(`/v1/deployments/${d.deployment_id}`, { name: "Renamed", system_prompt: "Be brief." });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ name: "Renamed", model: "mock/echo", customer_id: "cus_1", status: "ready", thread_id: d.thread_id });
    const after = await agentOf(d.deployment_id);
    expect(after.version).to.equal(before.version + 1);
    expect(after).to.include({ name: "Renamed", systemPrompt: "Be brief." });
    expect(after.skills).to.deep.equal(["greet"]);
  });

  it("replaces arrays whole, and [] clears them", async () => {
    const d = await readyDeployment(api, {
      skills: [
        { name: "a", source: "inline", content: skill("a") },
        { name: "b", source: "inline", content: skill("b") },
      ],
    });
    await api.patch(`/v1/deployments/${d.deployment_id}`, { skills: [{ name: "c", source: "inline", content: skill("c") }] });
    expect((await agentOf(d.deployment_id)).skills).to.deep.equal(["c"]);
    await api.patch(`/v1/deployments/${d.deployment_id}`, { skills: [] });
    expect((await agentOf(d.deployment_id)).skills).to.deep.equal([]);
  });

  it("merges maps per key; null removes a key (a feature goes back to its default)", async () => {
    const d = await readyDeployment(api, { features: { memory: false, steering: false } });
    const toolset = (a: any) => a.tools.find((t: any) => t.type === "agent_toolset");
    let agent = await agentOf(d.deployment_id);
    expect(toolset(agent).configs).to.deep.equal([{ name: "memory", enabled: false }]);
    expect(toolset(agent).defaultConfig.permissionPolicy).to.deep.equal({ type: "always_allow" });
    await api.patch(`/v1/deployments/${d.deployment_id}`, { features: { memory: null } });
    agent = await agentOf(d.deployment_id);
    expect(toolset(agent).configs).to.deep.equal([]);
    expect(toolset(agent).defaultConfig.permissionPolicy, "steering stays off").to.deep.equal({ type: "always_allow" });
    await api.patch(`/v1/deployments/${d.deployment_id}`, { features: { steering: true } });
    expect(toolset(await agentOf(d.deployment_id)).defaultConfig.permissionPolicy, "steering on: tools ask").to.deep.equal({ type: "always_ask" });
  });

  it("merges secrets per key: the others are kept, null removes one", async () => {
    const refs: string[] = [];
    for (const name of ["a", "b", "c"]) refs.push((await api.post("/v1/secrets", { name, value: secret() })).body.secret_id);
    const d = await readyDeployment(api, { secrets: { SEC_A: refs[0], SEC_B: refs[1] }, features: { steering: false } });
    // The variables a command of the deployment is given (names only).
    const given = () => runTool(api, d, d.thread_id, "terminal", { command: "for v in SEC_A SEC_B SEC_C; do printenv $v > /dev/null && echo $v; done; true" });
    expect(await given()).to.equal("SEC_A\nSEC_B\n");
    expect((await api.patch(`/v1/deployments/${d.deployment_id}`, { secrets: { SEC_C: refs[2] } })).status).to.equal(200);
    expect(await given()).to.equal("SEC_A\nSEC_B\nSEC_C\n");
    expect((await api.patch(`/v1/deployments/${d.deployment_id}`, { secrets: { SEC_A: null } })).status).to.equal(200);
    expect(await given()).to.equal("SEC_B\nSEC_C\n");
    // A secret the deployment no longer names can be deleted; one it still names cannot.
    expect((await api.delete(`/v1/secrets/${refs[0]}`)).status).to.equal(200);
    expectError(await api.delete(`/v1/secrets/${refs[1]}`), 409, "conflict");
  });

  it("renames a secret's variable: the same reference under a new name lands (issue 32)", async () => {
    const ref = (await api.post("/v1/secrets", { name: "renamed", value: secret() })).body.secret_id;
    const d = await readyDeployment(api, { secrets: { SEC_OLD: ref }, features: { steering: false } });
    const given = () => runTool(api, d, d.thread_id, "terminal", { command: "for v in SEC_OLD SEC_NEW; do printenv $v > /dev/null && echo $v; done; true" });
    expect(await given()).to.equal("SEC_OLD\n");
    expect((await api.patch(`/v1/deployments/${d.deployment_id}`, { secrets: { SEC_OLD: null, SEC_NEW: ref } })).status).to.equal(200);
    expect(await given()).to.equal("SEC_NEW\n");
    // Renamed back: the same value under the first name again.
    expect((await api.patch(`/v1/deployments/${d.deployment_id}`, { secrets: { SEC_NEW: null, SEC_OLD: ref } })).status).to.equal(200);
    expect(await given()).to.equal("SEC_OLD\n");
  });

  it("answers an update that changes nothing with the deployment unchanged, writing nothing", async () => {
    const d = await readyDeployment(api, { features: { dreaming: false } });
    const before = await agentOf(d.deployment_id);
    const res = await api.patch(`/v1/deployments/${d.deployment_id}`, {
      name: d.name,
      model: d.model,
      features: { dreaming: false },
      customer_id: d.customer_id,
      runtime: "native",
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(d);
    expect((await api.patch(`/v1/deployments/${d.deployment_id}`, {})).body).to.deep.equal(d);
    expect((await agentOf(d.deployment_id)).version).to.equal(before.version);
  });

  it("refuses to change customer_id or runtime", async () => {
    const d = await readyDeployment(api);
    expectValidation(
      await api.patch(`/v1/deployments/${d.deployment_id}`, { customer_id: "cus_2" }),
      "customer_id: is immutable (create a new deployment for another customer)",
    );
    expectValidation(
      await api.patch(`/v1/deployments/${d.deployment_id}`, { runtime: "other" }),
      "runtime: is immutable (create a new deployment for another runtime)",
    );
    expect((await api.get(`/v1/deployments/${d.deployment_id}`)).body.customer_id).to.equal("cus_1");
  });

  it("keeps the core interface from changing a deployment's agent", async () => {
    const d = await readyDeployment(api);
    const agent = await agentOf(d.deployment_id);
    const core = client(server.url, coreKey);
    expectError(await core.patch(`/v1/agents/${agent.id}`, { name: "x" }), 409, "conflict");
    expectError(await core.post(`/v1/agents/${agent.id}/archive`), 409, "conflict");
    expectError(await core.delete(`/v1/agents/${agent.id}`), 409, "conflict");
  });

  it("refuses invalid update bodies", async () => {
    const d = await readyDeployment(api);
    expectValidation(await api.patch(`/v1/deployments/${d.deployment_id}`, { secrets: { OK: 5 } }), "secrets.OK: must be string or null");
    expectValidation(await api.patch(`/v1/deployments/${d.deployment_id}`, { features: { memory: 1 } }), "features.memory: must be boolean or null");
    expectValidation(await api.patch(`/v1/deployments/${d.deployment_id}`, { sandbox: { enabled: false } }), "sandbox: is not allowed");
    expectValidation(await api.patch(`/v1/deployments/${d.deployment_id}`, { name: null }));
  });

  it("applies the new settings to the next thread", async () => {
    const d = await readyDeployment(api);
    await api.patch(`/v1/deployments/${d.deployment_id}`, { system_prompt: "Second prompt." });
    const thread = await api.post(`/v1/deployments/${d.deployment_id}/threads`, { title: "after the update" });
    expect(thread.status).to.equal(201);
    const core = client(server.url, coreKey);
    const [first, second] = await Promise.all([core.get(`/v1/sessions/${d.thread_id}`), core.get(`/v1/sessions/${thread.body.thread_id}`)]);
    expect(second.body.agentVersion).to.equal(first.body.agentVersion + 1);
  });
});
