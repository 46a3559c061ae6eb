import { expect } from "chai";
import { deploymentAgent, deploymentBody, deploymentsClient, readyDeployment, settled } from "./support/deployments.js";
import { gatedMcp } from "./support/gated-mcp.js";
import { capturingLogs } from "./support/logs.js";
import { startEverythingServer, type McpTestServer } from "./support/mcp-servers.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { until } from "./support/sessions.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.patch(`/v1/deployments/${d.deployment_id}`, { name: `name ${i}`, system_prompt: `prompt ${i}` })),
    );
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

  it("keeps a provisioning run that outlasts its lease: another process cannot take its work over", async () => {
    const other = await startServer({ DEPLOYMENT_LEASE_MS: "500", DEPLOYMENT_SWEEP_INTERVAL_MS: "3600000", MCP_TIMEOUT_MS: "60000" });
    const gate = await gatedMcp(everything);
    try {
      const created = await api.post("/v1/deployments", deploymentBody({ mcp_servers: [{ name: "slow", url: gate.url }] }));
      await gate.firstArrival;
      // Several leases long: the run, still waiting on its MCP server, renews its lease meanwhile.
      await sleep(2_000);
      // A takeover would probe the server again (and wait at the gate as the first run does).
      await Promise.race([
        other.deployments.provisioning.work(created.body.deployment_id),
        until(
          async () => gate.arrivals(),
          (n) => n > 1,
          20_000,
          "a second probe",
        ),
      ]);
      expect(gate.arrivals(), "only the first run probed the server").to.equal(1);
      gate.open();
      expect(await settled(api, created.body.deployment_id)).to.include({ status: "ready", status_reason: null });
    } finally {
      gate.open();
      await gate.close();
      await other.close();
    }
  });

  it("stops a run whose lease was taken over before its next write; the new holder finishes the work", async () => {
    const watched = await startServer({ DEPLOYMENT_LEASE_MS: "500", DEPLOYMENT_SWEEP_INTERVAL_MS: "3600000", MCP_TIMEOUT_MS: "60000", LOG_LEVEL: "warn" });
    const gate = await gatedMcp(everything);
    try {
      const org = `org-lease-lost-${Date.now()}`;
      const { api: own } = await deploymentsClient(watched, undefined, org);
      const created = await own.post("/v1/deployments", deploymentBody({ mcp_servers: [{ name: "slow", url: gate.url }] }));
      const id = created.body.deployment_id;
      await gate.firstArrival;
      // Another process's run holds the lease now (as if this one had stalled past it): this run must not settle.
      const records = watched.core.connections.mongo.db.collection("deployments");
      await records.updateOne({ _id: id } as never, { $set: { leaseOwner: "another-run", leaseUntil: new Date(Date.now() + 60_000) } });
      await sleep(1_000); // its next renewals (every third of the lease) find the lease another's
      await capturingLogs(async (lines) => {
        gate.open();
        await until(async () => lines.some((l) => l.includes("its lease was lost") && l.includes(id)), Boolean, 10_000, "the run to stop");
      });
      expect((await own.get(`/v1/deployments/${id}`)).body.status, "not settled by a run that lost its lease").to.equal("provisioning");
      expect((await client(watched.url, await watched.newKey(org)).get(`/v1/sessions/${created.body.thread_id}`)).status, "no default thread made").to.equal(
        404,
      );
      // That holder went away: its lease lapses, and the next run provisions.
      await records.updateOne({ _id: id } as never, { $set: { leaseUntil: new Date(0) } });
      await watched.deployments.provisioning.work(id);
      expect(await settled(own, id)).to.include({ status: "ready" });
    } finally {
      gate.open();
      await gate.close();
      await watched.close();
    }
  });
});
