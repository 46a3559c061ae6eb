import { expect } from "chai";
import { deploymentAgent, deploymentBody, deploymentsClient, readyDeployment, settled } from "./support/deployments.js";
import { gatedMcp } from "./support/gated-mcp.js";
import { startEverythingServer, type McpTestServer } from "./support/mcp-servers.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

describe("deployments: concurrent updates and provisioning runs", () => {
  let everything: McpTestServer;
  let server: TestServer;
  let api: Client;
  let core: Client;

  before(async () => {
    everything = await startEverythingServer();
    // No sweep runs by itself: a test runs another process's work by hand.
    server = await startServer({ DEPLOYMENT_LEASE_MS: "500", DEPLOYMENT_SWEEP_INTERVAL_MS: "3600000", MCP_TIMEOUT_MS: "60000" });
    const org = `org-concurrency-${Date.now()}`;
    ({ api } = await deploymentsClient(server, undefined, org));
    core = client(server.url, await server.newKey(org));
  });
  after(async () => {
    await server.close();
    await everything.close();
  });

  it("applies two concurrent updates in some order, or refuses one with 409: none is lost silently", async () => {
    const d = await readyDeployment(api);
    let expected = { name: d.name as string, prompt: "You help Acme." };
    for (let round = 0; round < 6; round++) {
      const [named, prompted] = await Promise.all([
        api.patch(`/v1/deployments/${d.deployment_id}`, { name: `name ${round}` }),
        api.patch(`/v1/deployments/${d.deployment_id}`, { system_prompt: `prompt ${round}` }),
      ]);
      for (const res of [named, prompted]) expect([200, 409], JSON.stringify(res.body)).to.include(res.status);
      expect(named.status === 200 || prompted.status === 200, "one of them applies").to.equal(true);
      expected = { name: named.status === 200 ? `name ${round}` : expected.name, prompt: prompted.status === 200 ? `prompt ${round}` : expected.prompt };
      expect((await api.get(`/v1/deployments/${d.deployment_id}`)).body.name).to.equal(expected.name);
      expect(await deploymentAgent(core, d.deployment_id), `round ${round}`).to.include({ name: expected.name, systemPrompt: expected.prompt });
    }
  });

  it("leaves the agent on the newest settings whatever order concurrent updates publish it in", async () => {
    const d = await readyDeployment(api);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => api.patch(`/v1/deployments/${d.deployment_id}`, { name: `name ${i}`, system_prompt: `prompt ${i}` })));
    for (const res of answers) expect([200, 409], JSON.stringify(res.body)).to.include(res.status);
    const final = (await api.get(`/v1/deployments/${d.deployment_id}`)).body.name as string;
    expect(answers.filter((r) => r.status === 200).map((r) => r.body.name)).to.include(final);
    expect(await deploymentAgent(core, d.deployment_id)).to.include({ name: final, systemPrompt: `prompt ${final.split(" ")[1]}` });
  });

  it("ends updates made during provisioning with the agent on the newest settings", async () => {
    const gate = await gatedMcp(everything);
    try {
      const created = await api.post("/v1/deployments", deploymentBody({ mcp_servers: [{ name: "slow", url: gate.url }] }));
      await gate.firstArrival;
      const id = created.body.deployment_id;
      expect((await api.patch(`/v1/deployments/${id}`, { system_prompt: "Second." })).status).to.equal(200);
      expect((await api.patch(`/v1/deployments/${id}`, { system_prompt: "Third.", name: "Renamed" })).status).to.equal(200);
      gate.open();
      expect(await settled(api, id)).to.include({ status: "ready", name: "Renamed" });
      expect(await deploymentAgent(core, id)).to.include({ systemPrompt: "Third.", name: "Renamed" });
    } finally {
      gate.open();
      await gate.close();
    }
  });
});
