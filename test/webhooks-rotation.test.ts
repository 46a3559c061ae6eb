/** An endpoint's secret rotated: both secrets sign for a day, so a receiver still holding the old one keeps verifying. */
import { expect } from "chai";
import { secret } from "./support/secrets.js";
import { until } from "./support/sessions.js";
import { client, startServer, type TestServer } from "./support/server.js";
import { webhookReceiver } from "./support/webhook-receiver.js";

describe("webhooks: a rotated signing secret", () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

  before(async () => {
    server = await startServer({ WEBHOOK_SWEEP_INTERVAL_MS: "50", WEBHOOK_RETRY_FIRST_MS: "50", WEBHOOK_MAX_ATTEMPTS: "4" });
    receiver = await webhookReceiver();
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  it("signs with both secrets for a day after a rotation, so a receiver still holding the old one keeps verifying", async () => {
    const org = `org-webhooks-rotate-${process.pid}-${Date.now()}`;
    const orgId = await server.core.stores.organizations.ensureOrganization(org);
    const own = client(server.url, await server.newKey(org));
    const created = await own.post("/v1/webhooks", { url: receiver.url("/rotated") });
    const old = secret(created.body.secret);
    const rotated = await own.post(`/v1/webhooks/${created.body.id}/rotate-secret`);
    expect(rotated.status).to.equal(200);
    const current = secret(rotated.body.secret);
    expect(current).to.not.equal(old);
    receiver.state.failFirst = 0;
    await server.core.inner.webhooks.notices.notify(
      orgId,
      "deployment.status_changed",
      "dep_r:ready:1",
      { deployment_id: "dep_r", status: "ready" },
      new Date(),
    );
    const byOld = await until(
      async () => receiver.verified("/rotated", old),
      (l) => l.length > 0,
      15_000,
      "the delivery",
    );
    expect(receiver.verified("/rotated", current).map((m) => m.id)).to.deep.equal(byOld.map((m) => m.id));
    const endpoints = server.core.inner.webhooks.endpoints;
    expect((await endpoints.withSecrets(created.body.id))!.secrets).to.deep.equal([current, old]);
    // Past the overlap the old one signs no more; the stored records never show either.
    expect((await endpoints.withSecrets(created.body.id, new Date(Date.now() + 25 * 3_600_000)))!.secrets).to.deep.equal([current]);
    expect((await own.get(`/v1/webhooks/${created.body.id}`)).body).to.not.have.any.keys("secret", "previousSecret");
  });
});
