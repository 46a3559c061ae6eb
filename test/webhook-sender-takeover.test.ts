import { expect } from "chai";
import { createLogger } from "../src/log.js";
import { WebhookSender, type DeliveryTarget } from "../src/webhooks/webhook-sender.js";
import type { Fetch } from "../src/outbound/outbound.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type TestServer } from "./support/server.js";
import { until } from "./support/sessions.js";
import { webhookReceiver } from "./support/webhook-receiver.js";

describe("webhooks: a sender that dies mid-attempt", () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  before(async () => {
    // No scheduler: the senders here are the only ones.
    server = await startServer({ ROLE: "api" });
    receiver = await webhookReceiver();
  });
  after(async () => {
    receiver.close();
    await server.close();
  });

  it("leaves the delivery it claimed to another sender once its claim lapses: delivered once, signed, logged as one attempt", async () => {
    const org = `org-webhooks-takeover-${process.pid}-${Date.now()}`;
    const orgId = await server.core.stores.organizations.ensureOrganization(org);
    const own = client(server.url, await server.newKey(org));
    const created = await own.post("/v1/webhooks", { url: receiver.url("/takeover") });
    const signing = secret(created.body.secret);
    receiver.state.failFirst = 0;
    const { notices, deliveries, endpoints } = server.core.inner.webhooks;
    await notices.notify(orgId, "deployment.status_changed", "dep_t:ready:1", { deployment_id: "dep_t", status: "ready" }, new Date());

    const target: DeliveryTarget = (d) => endpoints.withSecrets(d.endpointId!);
    const opts = { maxAttempts: 3, firstRetryMs: 100, maxRetryMs: 1_000, timeoutMs: 500 };
    const logger = createLogger("error", {}, () => undefined);
    // The first sender's process dies during its request: no answer comes, nothing of the attempt is recorded.
    let reached = false;
    const dies: Fetch = () => {
      reached = true;
      return new Promise<Response>(() => undefined);
    };
    void new WebhookSender(deliveries, target, dies, logger, opts).sweep(new Date(), 1);
    await until(
      async () => reached,
      (r) => r,
      5_000,
      "the first sender's attempt",
    );

    const live = new WebhookSender(deliveries, target, (input, init) => fetch(input, init), logger, opts);
    expect(await live.sweep(new Date())).to.equal(0);
    await until(
      () => live.sweep(new Date()),
      (n) => n > 0,
      10_000,
      "the claim to lapse",
    );

    const received = receiver.verified("/takeover", signing);
    expect(received).to.have.length(1);
    expect(received[0]!.body.data).to.deep.equal({ deployment_id: "dep_t", status: "ready" });
    const logged = (await own.get(`/v1/webhooks/${created.body.id}/deliveries`)).body.data;
    expect(logged).to.have.length(1);
    expect(logged[0]).to.include({ status: "delivered", attempts: 1 });
  });
});
