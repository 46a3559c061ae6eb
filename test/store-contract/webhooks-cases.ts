/** Store contract: webhook endpoints, deployments' filesystem webhooks and manifests, and the delivery queue, read back exactly. */
import { expect } from "chai";
import { DeploymentWebhookStore } from "../../src/deployments/store/webhooks.js";
import { WebhookDeliveryStore, type DeliveryDoc } from "../../src/webhooks/store/webhook-deliveries.js";
import { WebhookEndpointStore } from "../../src/webhooks/store/webhook-endpoints.js";
import { any, deps, expectDoc, uid, type ContractCase } from "./target.js";

const AT = new Date("2026-01-02T03:04:05.000Z");

function delivery(over: Partial<DeliveryDoc> = {}): DeliveryDoc {
  return {
    _id: uid("msg"),
    orgId: "org_contract",
    type: "t",
    body: "{}",
    status: "pending",
    attempts: 0,
    nextAttemptAt: AT,
    lastError: null,
    lastStatus: null,
    createdAt: AT,
    deliveredAt: null,
    ...over,
  };
}

export const webhookCases: ContractCase[] = [
  {
    title: "WebhookEndpointStore create, update, rotate and remove: event types replaced, the rotated-out secret kept beside the new",
    sites: ["WebhookEndpointStore.create", "WebhookEndpointStore.update", "WebhookEndpointStore.rotate", "WebhookEndpointStore.remove"],
    async run(t) {
      const s = new WebhookEndpointStore(t.db, deps.box, deps.changes);
      const id = uid("whe");
      const fields = { _id: id, orgId: "org_contract", url: "https://hooks.example.com/a", description: null, eventTypes: ["a.b", "c.d"], enabled: true };
      await s.create(fields, "whsec_first");
      const made = { ...fields, secret: any.sealed, createdAt: any.date, updatedAt: any.date };
      await expectDoc(t, "webhook_endpoints", id, made);
      await s.update("org_contract", id, { eventTypes: ["c.d", "a.b"], description: "moved" });
      await expectDoc(t, "webhook_endpoints", id, { ...made, eventTypes: ["c.d", "a.b"], description: "moved" });
      await s.update("org_contract", id, { eventTypes: null, enabled: false });
      const changed = { ...made, eventTypes: null, enabled: false, description: "moved" };
      await expectDoc(t, "webhook_endpoints", id, changed);
      const before = await t.raw.collection("webhook_endpoints").findOne({ _id: id as never });
      await s.rotate("org_contract", id, "whsec_second", 60_000);
      await expectDoc(t, "webhook_endpoints", id, { ...changed, previousSecret: { secret: before!.secret, until: any.date } });
      expect(await s.secretOf(id)).to.equal("whsec_second");
      expect(await s.remove("org_other", id)).to.equal(false);
      expect(await s.remove("org_contract", id)).to.equal(true);
      await expectDoc(t, "webhook_endpoints", id, null);
    },
  },
  {
    title: "DeploymentWebhookStore.put: upserted, then replaced with its createdAt kept",
    sites: ["DeploymentWebhookStore.put", "DeploymentWebhookStore.remove"],
    async run(t) {
      const s = new DeploymentWebhookStore(t.db, deps.box, deps.turns);
      const id = uid("dep");
      await s.put({ deploymentId: id, orgId: "org_contract", url: "https://hooks.example.com/1" }, "whsec_1");
      const first = await t.raw.collection("deployment_webhooks").findOne({ _id: id as never });
      await expectDoc(t, "deployment_webhooks", id, {
        _id: id,
        orgId: "org_contract",
        url: "https://hooks.example.com/1",
        secret: any.sealed,
        createdAt: any.date,
        updatedAt: any.date,
      });
      await s.put({ deploymentId: id, orgId: "org_contract", url: "https://hooks.example.com/2" }, "whsec_2");
      await expectDoc(t, "deployment_webhooks", id, {
        _id: id,
        orgId: "org_contract",
        url: "https://hooks.example.com/2",
        secret: any.sealed,
        createdAt: first!.createdAt,
        updatedAt: any.date,
      });
      expect((await s.withSecret(id))!.secret).to.equal("whsec_2");
      expect(await s.remove(id)).to.equal(true);
      await expectDoc(t, "deployment_webhooks", id, null);
    },
  },
  {
    title: "DeploymentWebhookStore manifests: a lease made by upsert, refused while held, a scan saved, the lease given back",
    sites: [
      "DeploymentWebhookStore.leaseManifest",
      "DeploymentWebhookStore.saveManifest",
      "DeploymentWebhookStore.releaseManifest",
      "DeploymentWebhookStore.remove",
    ],
    async run(t) {
      const s = new DeploymentWebhookStore(t.db, deps.box, deps.turns);
      const id = uid("dep");
      const now = new Date();
      expect(await s.leaseManifest(id, now, 60_000)).to.deep.equal({ files: [], scannedAt: null });
      await expectDoc(t, "workspace_manifests", id, { _id: id, leaseUntil: new Date(now.getTime() + 60_000) });
      expect(await s.leaseManifest(id, now, 60_000), "held").to.equal(null);
      await s.saveManifest(
        id,
        [
          ["a.txt", 3, 1_000],
          ["b/c.md", 0, 2_000],
        ],
        AT,
      );
      await expectDoc(t, "workspace_manifests", id, {
        _id: id,
        files: [
          { p: "a.txt", s: 3, m: 1_000 },
          { p: "b/c.md", s: 0, m: 2_000 },
        ],
        scannedAt: AT,
        leaseUntil: null,
      });
      expect(await s.leaseManifest(id, now, 60_000)).to.deep.equal({
        files: [
          ["a.txt", 3, 1_000],
          ["b/c.md", 0, 2_000],
        ],
        scannedAt: AT,
      });
      await s.releaseManifest(id);
      await expectDoc(t, "workspace_manifests", id, {
        _id: id,
        files: [
          { p: "a.txt", s: 3, m: 1_000 },
          { p: "b/c.md", s: 0, m: 2_000 },
        ],
        scannedAt: AT,
        leaseUntil: null,
      });
      await s.remove(id);
      await expectDoc(t, "workspace_manifests", id, null);
    },
  },
  {
    title: "WebhookDeliveryStore enqueue and claimDue: a repeated id left as it was; the earliest due claimed first",
    sites: ["WebhookDeliveryStore.enqueue", "WebhookDeliveryStore.claimDue"],
    async run(t) {
      const s = new WebhookDeliveryStore(t.db, deps.claims);
      const endpointId = uid("whe");
      const early = delivery({ endpointId, nextAttemptAt: new Date(0), body: '{"n":1}' });
      const late = delivery({ endpointId, nextAttemptAt: new Date(1) });
      await s.enqueue([late, early]);
      await s.enqueue([{ ...early, body: "changed" }, delivery({ endpointId, status: "failed" })]);
      await expectDoc(t, "webhook_deliveries", early._id, early);
      const claimUntil = new Date(Date.now() + 3_600_000);
      const claimed = [await s.claimDue(new Date(1), claimUntil), await s.claimDue(new Date(1), claimUntil)];
      expect(claimed.map((d) => d?._id)).to.deep.equal([early._id, late._id]);
      await expectDoc(t, "webhook_deliveries", early._id, { ...early, nextAttemptAt: claimUntil });
      await expectDoc(t, "webhook_deliveries", late._id, { ...late, nextAttemptAt: claimUntil });
      await s.removeForEndpoint(endpointId);
    },
  },
  {
    title: "WebhookDeliveryStore settles: delivered, retried later, failed for good, and retried by hand; removed with their owner",
    sites: [
      "WebhookDeliveryStore.delivered",
      "WebhookDeliveryStore.attemptFailed",
      "WebhookDeliveryStore.retry",
      "WebhookDeliveryStore.removeFor",
      "WebhookDeliveryStore.removeForEndpoint",
    ],
    async run(t) {
      const s = new WebhookDeliveryStore(t.db, deps.claims);
      const [deploymentId, endpointId] = [uid("dep"), uid("whe")];
      const [a, b] = [delivery({ deploymentId }), delivery({ endpointId })];
      await s.enqueue([a, b]);
      await s.delivered(a._id, 204, AT);
      await expectDoc(t, "webhook_deliveries", a._id, { ...a, status: "delivered", lastStatus: 204, lastError: null, deliveredAt: AT, attempts: 1 });
      const retryAt = new Date(AT.getTime() + 5_000);
      await s.attemptFailed(b._id, "timed out", null, retryAt);
      await expectDoc(t, "webhook_deliveries", b._id, { ...b, nextAttemptAt: retryAt, lastError: "timed out", lastStatus: null, attempts: 1 });
      await s.attemptFailed(b._id, "HTTP 500", 500, null);
      const failed = { ...b, nextAttemptAt: retryAt, status: "failed", lastError: "HTTP 500", lastStatus: 500, attempts: 2 };
      await expectDoc(t, "webhook_deliveries", b._id, failed);
      expect(await s.retry(endpointId, b._id, AT)).to.include({ status: "pending" });
      expect(await s.retry(endpointId, b._id, AT), "pending already").to.equal(null);
      await expectDoc(t, "webhook_deliveries", b._id, { ...failed, status: "pending", nextAttemptAt: AT, deliveredAt: null });
      await s.removeFor(deploymentId);
      await s.removeForEndpoint(endpointId);
      await expectDoc(t, "webhook_deliveries", a._id, null);
      await expectDoc(t, "webhook_deliveries", b._id, null);
    },
  },
];
