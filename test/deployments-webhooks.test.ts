import { expect } from "chai";
import { Webhook } from "standardwebhooks";
import { deploymentsClient, readyDeployment } from "./support/deployments.js";
import { expectError, expectValidation } from "./support/expect.js";
import { listenLoopback } from "./support/mcp-tools.js";
import { secret } from "./support/secrets.js";
import { until } from "./support/sessions.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

interface Received {
  headers: Record<string, string>;
  body: string;
}

describe("deployments: filesystem webhooks", () => {
  let server: TestServer;
  let api: Client;
  let receiver: Awaited<ReturnType<typeof listenLoopback>>;
  const received: Received[] = [];
  /** Answers 500 to this many requests first (a receiver that fails on purpose). */
  let failures = 0;

  before(async () => {
    server = await startServer({
      DEPLOYMENT_SWEEP_INTERVAL_MS: "100",
      WEBHOOK_SWEEP_INTERVAL_MS: "100",
      WEBHOOK_RETRY_FIRST_MS: "100",
      WEBHOOK_MAX_ATTEMPTS: "4",
    });
    ({ api } = await deploymentsClient(server));
    receiver = await listenLoopback(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      received.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body: Buffer.concat(chunks).toString("utf8") });
      if (failures > 0) {
        failures--;
        res.writeHead(500).end();
      } else res.writeHead(204).end();
    });
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const put = (d: any, path: string, text: string) =>
    api.put(`/v1/deployments/${d.deployment_id}/files/${encodeURIComponent(path)}`, undefined, { raw: text, headers: { "content-type": "text/plain" } });
  const settle = () => new Promise((r) => setTimeout(r, 600));

  it("signs each change of the workspace as Standard Webhooks says, retries a failing receiver, and logs the deliveries", async () => {
    const d = await readyDeployment(api, { features: { filesystem_webhooks: true } });
    const set = await api.put(`/v1/deployments/${d.deployment_id}/webhook`, { url: `${receiver.origin}/hooks` });
    expect(set.status).to.equal(200);
    const signing = secret(set.body.secret);
    expect(signing).to.match(/^whsec_/);
    const read = await api.get(`/v1/deployments/${d.deployment_id}/webhook`);
    expect(read.body).to.deep.equal({
      deployment_id: d.deployment_id,
      url: `${receiver.origin}/hooks`,
      created_at: set.body.created_at,
      updated_at: set.body.updated_at,
    });
    await settle(); // the first scan is the baseline

    failures = 2;
    await put(d, "notes/today.md", "hello");
    const first = await until(
      async () => received.filter((r) => r.headers["webhook-id"]),
      (list) => list.length >= 3,
      15_000,
      "two failures then a delivery",
    );
    expect(new Set(first.map((r) => r.headers["webhook-id"])).size, "one message, retried").to.equal(1);
    const verified = new Webhook(signing).verify(first[2]!.body, first[2]!.headers) as any;
    expect(verified).to.deep.include({ type: "filesystem.changed" });
    expect(verified.data).to.deep.equal({ deployment_id: d.deployment_id, changes: [{ path: "notes/today.md", change: "created", size: 5 }] });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(first[2]!.body, first[2]!.headers)).to.throw();

    const log = await until(
      () => api.get(`/v1/deployments/${d.deployment_id}/webhook/deliveries`),
      (r) => r.body.data[0]?.status === "delivered",
      10_000,
      "the delivery logged",
    );
    expect(log.body.data[0]).to.include({
      delivery_id: first[0]!.headers["webhook-id"],
      type: "filesystem.changed",
      status: "delivered",
      attempts: 3,
      last_status: 204,
      last_error: null,
    });

    const before = received.length;
    await put(d, "notes/today.md", "hello again");
    await until(
      () => Promise.resolve(received.slice(before)),
      (list) => list.length >= 1,
      10_000,
      "the change",
    );
    const change = JSON.parse(received[before]!.body);
    expect(change.data.changes).to.deep.equal([{ path: "notes/today.md", change: "modified", size: 11 }]);
  });

  it("fails a delivery for good after its last attempt, and says why", async () => {
    const d = await readyDeployment(api, { features: { filesystem_webhooks: true } });
    await api.put(`/v1/deployments/${d.deployment_id}/webhook`, { url: `${receiver.origin}/hooks` }).then((r) => secret(r.body.secret));
    await settle();
    failures = 100;
    await put(d, "a.txt", "x");
    const log = await until(
      () => api.get(`/v1/deployments/${d.deployment_id}/webhook/deliveries`),
      (r) => r.body.data[0]?.status === "failed",
      15_000,
      "the delivery failed",
    );
    expect(log.body.data[0]).to.include({ attempts: 4, last_status: 500, last_error: "the endpoint answered HTTP 500" });
    failures = 0;
  });

  it("sends nothing while the feature is off, and refuses bad webhooks", async () => {
    const d = await readyDeployment(api);
    await api.put(`/v1/deployments/${d.deployment_id}/webhook`, { url: `${receiver.origin}/quiet` }).then((r) => secret(r.body.secret));
    await settle();
    await put(d, "b.txt", "x");
    await settle();
    expect(received.filter((r) => r.body.includes(d.deployment_id))).to.deep.equal([]);
    expectValidation(await api.put(`/v1/deployments/${d.deployment_id}/webhook`, { url: "ftp://x" }), "url: must match the pattern ^https?://");
    expectValidation(
      await api.put(`/v1/deployments/${d.deployment_id}/webhook`, { url: "https://user:pw@example.com/h" }),
      "url: must not contain credentials",
    );
    expect((await api.delete(`/v1/deployments/${d.deployment_id}/webhook`)).body).to.deep.equal({ deployment_id: d.deployment_id, webhook: "deleted" });
    expectError(await api.get(`/v1/deployments/${d.deployment_id}/webhook`), 404, "not_found");
  });
});
