import { expect } from "chai";
import { deploymentBody, deploymentsClient, settled } from "./support/deployments.js";
import { gatedMcp } from "./support/gated-mcp.js";
import { startEverythingServer, type McpTestServer } from "./support/mcp-servers.js";
import { freePort } from "./support/ports.js";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { LOOPBACK, client, startServer, type TestServer } from "./support/server.js";
import { until } from "./support/sessions.js";

describe("deployments: provisioning survives its process dying", () => {
  let everything: McpTestServer;
  let gate: Awaited<ReturnType<typeof gatedMcp>>;
  let keys: TestServer;
  const processes: ServiceProcess[] = [];

  before(async () => {
    everything = await startEverythingServer();
    gate = await gatedMcp(everything);
    // Keys are made through a server of this process; the service under test runs in child processes.
    keys = await startServer({ ROLE: "api" });
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop("SIGKILL")));
    await keys.close();
    await gate.close();
    await everything.close();
  });

  async function serviceProcess(): Promise<{ proc: ServiceProcess; url: string }> {
    const port = await freePort();
    const proc = await startProcess("all", {
      DEPLOYMENTS_PORT: String(port),
      DEPLOYMENT_LEASE_MS: "2000",
      DEPLOYMENT_SWEEP_INTERVAL_MS: "200",
      OUTBOUND_ALLOWED_NETWORKS: LOOPBACK,
      LOG_LEVEL: "info",
    });
    processes.push(proc);
    await proc.waitForLog("deployments interface listening");
    return { proc, url: `http://127.0.0.1:${port}` };
  }

  it("an update made while provisioning runs is provisioned at once, with the new settings", async () => {
    const hanging = await gatedMcp(everything);
    // No sweep comes to help: the holder of the lease provisions the update itself.
    const server = await startServer({ MCP_TIMEOUT_MS: "1000", DEPLOYMENT_SWEEP_INTERVAL_MS: "3600000" });
    try {
      const { api } = await deploymentsClient(server);
      const created = await api.post("/v1/deployments", deploymentBody({ mcp_servers: [{ name: "slow", url: hanging.url }] }));
      await hanging.firstArrival;
      const updated = await api.patch(`/v1/deployments/${created.body.deployment_id}`, { mcp_servers: [] });
      expect(updated.body.status).to.equal("provisioning");
      const ready = await settled(api, created.body.deployment_id, 10_000);
      expect(ready).to.include({ status: "ready", status_reason: null });
    } finally {
      await server.close();
      hanging.open();
      await hanging.close();
    }
  });

  it("a deployment deleted while provisioning runs is torn down once that run ends, leaving no thread behind", async () => {
    const hanging = await gatedMcp(everything);
    const server = await startServer({ MCP_TIMEOUT_MS: "1000", DEPLOYMENT_SWEEP_INTERVAL_MS: "3600000" });
    try {
      const org = `org-delete-provisioning-${Date.now()}`;
      const { api } = await deploymentsClient(server, undefined, org);
      const core = client(server.url, await server.newKey(org));
      const created = await api.post("/v1/deployments", deploymentBody({ mcp_servers: [{ name: "slow", url: hanging.url }] }));
      await hanging.firstArrival;
      expect((await api.delete(`/v1/deployments/${created.body.deployment_id}`)).status).to.equal(200);
      // The record is removed last, once the teardown is done.
      const record = () => server.core.connections.mongo.db.collection("deployments").findOne({ _id: created.body.deployment_id } as never);
      await until(record, (doc) => doc === null, 10_000, "the teardown");
      const agents = (await core.get("/v1/agents?limit=100")).body.data.filter((a: any) => a.metadata?.deploymentId === created.body.deployment_id);
      expect(agents, "the deployment's agent").to.deep.equal([]);
      expect((await core.get(`/v1/sessions/${created.body.thread_id}`)).status).to.equal(404);
    } finally {
      await server.close();
      hanging.open();
      await hanging.close();
    }
  });

  it("a deployment whose process was killed mid-provisioning is provisioned by another", async () => {
    const { key } = await deploymentsClient(keys);
    const first = await serviceProcess();
    const api = client(first.url, key, "bearer");
    const created = await api.post("/v1/deployments", deploymentBody({ mcp_servers: [{ name: "tools", url: gate.url }] }));
    expect(created.status).to.equal(201);
    await gate.firstArrival;
    await first.proc.stop("SIGKILL");
    gate.open();

    const second = await serviceProcess();
    const ready = await settled(client(second.url, key, "bearer"), created.body.deployment_id, 20_000);
    expect(ready).to.include({ status: "ready", thread_id: created.body.thread_id });
    // The record turns ready before the line is logged and reaches this process through the pipe.
    await second.proc.waitForLog('"msg":"deployment provisioned"', 5_000);
  });
});
