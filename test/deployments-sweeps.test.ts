import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { DREAM_TITLE } from "../src/deployments/dreams.js";
import { deploymentsClient, readyDeployment } from "./support/deployments.js";
import { listenLoopback } from "./support/mcp-tools.js";
import { secret } from "./support/secrets.js";
import { until, userMessage } from "./support/sessions.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

/** Deployments each sweep below must serve: more than one page of them, with pages of one. */
const MANY = 3;

describe("deployments: the sweeps serve every deployment, a page at a time", () => {
  let server: TestServer;
  let api: Client;
  let receiver: Awaited<ReturnType<typeof listenLoopback>>;

  before(async () => {
    // No sweep runs by itself: the tests run each with pages of one deployment.
    server = await startServer({ WORKSPACE_ROOT: await mkdtemp(join(tmpdir(), "dep-sweeps-")), DEPLOYMENT_SWEEP_INTERVAL_MS: "3600000" });
    ({ api } = await deploymentsClient(server));
    receiver = await listenLoopback(async (_req, res) => void res.writeHead(204).end());
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const many = (overrides: Record<string, unknown>) => Promise.all(Array.from({ length: MANY }, () => readyDeployment(api, overrides)));

  it("scans the workspace of every deployment with filesystem webhooks", async () => {
    const ds = await many({ features: { filesystem_webhooks: true } });
    for (const d of ds) secret((await api.put(`/v1/deployments/${d.deployment_id}/webhook`, { url: `${receiver.origin}/hooks` })).body.secret);
    await server.deployments.webhooks.sweep(new Date(), 1); // each one's first scan: the baseline
    for (const d of ds)
      await api.put(`/v1/deployments/${d.deployment_id}/files/notes.txt`, undefined, { raw: "changed", headers: { "content-type": "text/plain" } });
    await server.deployments.webhooks.sweep(new Date(), 1);
    for (const d of ds) {
      const log = (await api.get(`/v1/deployments/${d.deployment_id}/webhook/deliveries`)).body.data;
      expect(
        log.map((x: any) => x.type),
        d.deployment_id,
      ).to.deep.equal(["filesystem.changed"]);
    }
  });

  it("starts a dream for every idle deployment with dreaming on", async () => {
    const ds = await many({ features: { dreaming: true } });
    const events = (d: any) => api.get(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events?limit=100`).then((r) => r.body.data as any[]);
    for (const d of ds) await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage("I like tea")] });
    for (const d of ds)
      await until(
        () => events(d),
        (e) => e.some((x) => x.type === "session.status_idle"),
        15_000,
        "the turn",
      );
    // As if an hour had passed: every one of them has been idle long enough.
    await server.deployments.dreams.sweep(new Date(Date.now() + 3_600_000), 1);
    for (const d of ds) {
      const threads = (await api.get(`/v1/deployments/${d.deployment_id}/threads`)).body.data as any[];
      expect(
        threads.filter((t) => t.title === DREAM_TITLE),
        d.deployment_id,
      ).to.have.length(1);
    }
  });
});
