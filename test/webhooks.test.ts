import { expect } from "chai";
import { Webhook } from "standardwebhooks";
import { automationsPath } from "./support/automations.js";
import { deploymentsClient, readyDeployment } from "./support/deployments.js";
import { secret } from "./support/secrets.js";
import { createSession, sendText, settle, until } from "./support/sessions.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";
import { webhookReceiver } from "./support/webhook-receiver.js";
import { OrgEpochs } from "../src/redis/org-epochs.js";
import { WebhookNotices } from "../src/webhooks/webhook-notices.js";
import { sessionSteps } from "./tools-cases.js";

describe("webhooks: signed deliveries of session changes, retried, logged", () => {
  let server: TestServer;
  let api: Client;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

  before(async () => {
    server = await startServer({ WEBHOOK_SWEEP_INTERVAL_MS: "50", WEBHOOK_RETRY_FIRST_MS: "50", WEBHOOK_MAX_ATTEMPTS: "4" });
    api = client(server.url, await server.newKey());
    receiver = await webhookReceiver();
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const { paused, approve } = sessionSteps(() => api);
  const create = async (path: string, body: Record<string, unknown> = {}) => {
    const res = await api.post("/v1/webhooks", { url: receiver.url(path), ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { id: res.body.id as string, signing: secret(res.body.secret) };
  };
  const log = (id: string) => api.get(`/v1/webhooks/${id}/deliveries`);

  it("signs status changes and a pending approval as Standard Webhooks says, retries a receiver that fails, and logs each delivery's attempts", async () => {
    const { id, signing } = await create("/all", { description: "everything" });
    expect(signing).to.match(/^whsec_/);
    const filtered = await create("/runs-only", { eventTypes: ["automation_run.finished"] });
    receiver.state.failFirst = 2;

    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/tool todo {}");
    const { blocking } = await paused(sessionId);
    const asked = await until(
      async () => receiver.verified("/all", signing).filter((m) => m.body.type === "session.requires_action"),
      (list) => list.length > 0,
      15_000,
      "the pending approval's notice",
    );
    expect(asked[0]!.body.data).to.deep.include({ session_id: sessionId, event_ids: blocking });

    // Each notice was refused twice on purpose, then taken: one message, three attempts, one id.
    const first = receiver.received.filter((r) => r.path === "/all")[0]!;
    const logged = await until(
      () => log(id),
      (r) => r.body.data.some((d: any) => d.id === first.headers["webhook-id"] && d.status === "delivered"),
      15_000,
      "the first delivery logged",
    );
    expect(receiver.received.filter((r) => r.headers["webhook-id"] === first.headers["webhook-id"]).length).to.equal(3);
    expect(logged.body.data.find((d: any) => d.id === first.headers["webhook-id"])).to.deep.include({
      type: "webhook_delivery",
      status: "delivered",
      attempts: 3,
      lastStatus: 204,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(first.body, first.headers)).to.throw();

    await approve(sessionId, blocking[0]!);
    await settle(api, sessionId, 2);
    const idle = await until(
      async () =>
        receiver
          .verified("/all", signing)
          .filter((m) => m.body.type === "session.status_changed" && m.body.data.session_id === sessionId && m.body.data.status === "idle"),
      (list) => list.length > 0,
      15_000,
      "the idle status's notice",
    );
    expect(idle[0]!.body.data).to.include({ session_id: sessionId, subject_id: (await api.get(`/v1/sessions/${sessionId}`)).body.subjectId, status: "idle" });
    expect(idle[0]!.body.timestamp).to.be.a("string");

    // Every notice for the other endpoint is queued with the first's; its filter took none of them.
    expect((await log(filtered.id)).body.data).to.deep.equal([]);
    expect(receiver.received.filter((r) => r.path === "/runs-only")).to.deep.equal([]);
  });

  it("fails a delivery for good after its last attempt, says why, and attempts it again on request", async () => {
    const { id, signing } = await create("/down");
    receiver.state.failFirst = 1000;
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "hello");
    const failed = await until(
      () => log(id),
      (r) => r.body.data.some((d: any) => d.status === "failed"),
      15_000,
      "a delivery failed for good",
    );
    const gone = failed.body.data.find((d: any) => d.status === "failed");
    expect(gone).to.deep.include({ attempts: 4, lastStatus: 500, lastError: "the endpoint answered HTTP 500", nextAttemptAt: null });
    expect(gone.payload.data.session_id).to.equal(sessionId);

    receiver.state.failFirst = 0;
    const retried = await api.post(`/v1/webhooks/${id}/deliveries/${gone.id}/retry`);
    expect(retried.status).to.equal(200);
    const done = await until(
      () => api.get(`/v1/webhooks/${id}/deliveries/${gone.id}`),
      (r) => r.body.status === "delivered",
      15_000,
      "the retried delivery",
    );
    expect(done.body).to.include({ attempts: 5, lastStatus: 204 });
    expect(receiver.verified("/down", signing).filter((m) => m.id === gone.id).length).to.equal(5);
  });

  it("notifies finished automation runs and deployments' status changes, from their records' outbox marks", async () => {
    const org = `org-webhooks-${process.pid}-${Date.now()}`;
    const { api: deployments } = await deploymentsClient(server, undefined, org);
    const core = client(server.url, await server.newKey(org));
    const created = await core.post("/v1/webhooks", { url: receiver.url("/records"), eventTypes: ["automation_run.finished", "deployment.status_changed"] });
    const signing = secret(created.body.secret);
    receiver.state.failFirst = 0;

    const d = await readyDeployment(deployments);
    const ready = await until(
      async () => receiver.verified("/records", signing).filter((m) => m.body.type === "deployment.status_changed"),
      (l) => l.length > 0,
      15_000,
      "the deployment's notice",
    );
    expect(ready[0]!.body.data).to.deep.equal({ deployment_id: d.deployment_id, customer_id: d.customer_id, status: "ready", reason: null });

    const agent = await core.post("/v1/agents", agentBody());
    const automation = await core.post(automationsPath(agent.body.id, "alice"), { prompt: "Brief me.", schedule: "0 9 * * *" });
    expect(automation.status, JSON.stringify(automation.body)).to.equal(201);
    const run = await core.post(`${automationsPath(agent.body.id, "alice")}/${automation.body.id}/trigger`);
    expect(run.status).to.equal(200);
    const finished = await until(
      async () => receiver.verified("/records", signing).filter((m) => m.body.type === "automation_run.finished"),
      (l) => l.length > 0,
      15_000,
      "the run's notice",
    );
    expect(finished[0]!.body.data).to.deep.include({
      run_id: run.body.id,
      automation_id: automation.body.id,
      trigger: "manual",
      status: "succeeded",
      session_id: run.body.sessionId,
      error: null,
    });
    // Each record's outbox mark is cleared once its notice is queued.
    const db = server.core.connections.mongo.db;
    await until(
      () => db.collection("deployments").findOne({ _id: d.deployment_id }),
      (doc) => doc !== null && doc.notice === undefined,
      10_000,
      "the deployment's mark cleared",
    );
    await until(
      () => db.collection("automation_runs").findOne({ _id: run.body.id }),
      (doc) => doc !== null && doc.notify === undefined,
      10_000,
      "the run's mark cleared",
    );
    // Only the types the endpoint takes: no session notice for the run's session.
    expect(receiver.verified("/records", signing).map((m) => m.body.type)).to.not.include("session.status_changed");

    // A deletion is a status change too, queued by the teardown before the record (and its outbox) goes.
    expect((await deployments.delete(`/v1/deployments/${d.deployment_id}`)).status).to.equal(200);
    const deleted = await until(
      async () => receiver.verified("/records", signing).filter((m) => m.body.type === "deployment.status_changed" && m.body.data.status === "deleted"),
      (l) => l.length > 0,
      20_000,
      "the deletion's notice",
    );
    expect(deleted).to.have.length(1);
    expect(deleted[0]!.body.data).to.deep.equal({ deployment_id: d.deployment_id, customer_id: d.customer_id, status: "deleted", reason: null });
  });

  it("notifies a status whose writer died after its commit, before its record was written: from the recovery sweep", async () => {
    const { sessionId } = await createSession(api);
    const { signing } = await create("/repaired", { eventTypes: ["session.status_changed"] });
    // A commit that marks its record's write (its outbox entry), by a writer that then died: no projection ran.
    const plan = { drafts: [], state: { status: "archived" as const }, statuses: [], wake: false };
    const applied = await server.core.redis.appender.apply(sessionId, plan, { reads: [], fence: "", projection: `${sessionId} dead-writer` });
    expect(applied.ok).to.equal(true);
    const notified = await until(
      async () => receiver.verified("/repaired", signing),
      (l) => l.some((m) => m.body.data.status === "archived"),
      20_000,
      "the repaired status's notice",
    );
    expect(notified.find((m) => m.body.data.status === "archived")!.body.data).to.include({ session_id: sessionId, status: "archived" });
    expect((await api.get(`/v1/sessions?status=archived`)).body.data.map((x: { id: string }) => x.id)).to.include(sessionId);
  });

  it("queues a notice queued again for the same change (its writer retried) once: one message, one id", async () => {
    const org = `org-webhooks-repeat-${process.pid}-${Date.now()}`;
    const orgId = await server.core.stores.organizations.ensureOrganization(org);
    const own = client(server.url, await server.newKey(org));
    const created = await own.post("/v1/webhooks", { url: receiver.url("/repeat") });
    secret(created.body.secret);
    const { notices } = server.core.inner.webhooks;
    const at = new Date();
    expect(await notices.notify(orgId, "deployment.status_changed", "dep_x:ready:1", { deployment_id: "dep_x", status: "ready" }, at)).to.equal(1);
    expect(await notices.notify(orgId, "deployment.status_changed", "dep_x:ready:1", { deployment_id: "dep_x", status: "ready" }, new Date())).to.equal(1);
    const logged = await until(
      () => own.get(`/v1/webhooks/${created.body.id}/deliveries`),
      (r) => r.body.data[0]?.status === "delivered",
      15_000,
      "the delivery",
    );
    expect(logged.body.data).to.have.length(1);
    expect(logged.body.data[0].payload).to.deep.equal({
      type: "deployment.status_changed",
      timestamp: at.toISOString(),
      data: { deployment_id: "dep_x", status: "ready" },
    });
  });
  it("a change to an organization's endpoints reaches every process's next notice; unchanged endpoints are read once per change", async () => {
    const other = await startServer({ ROLE: "api" });
    const parts = server.core.inner.webhooks;
    const store = parts.endpoints;
    const enabled = store.enabled.bind(store);
    try {
      const org = `org-webhooks-targets-${process.pid}-${Date.now()}`;
      const orgId = await server.core.stores.organizations.ensureOrganization(org);
      const there = client(other.url, await other.newKey(org));
      // This process's reads of the organization's endpoints (MongoDB), counted on the real store.
      let reads = 0;
      store.enabled = async (o) => {
        if (o === orgId) reads++;
        return enabled(o);
      };
      let n = 0;
      const notify = (type: "deployment.status_changed" | "automation_run.finished" = "deployment.status_changed") =>
        parts.notices.notify(orgId, type, `k${++n}`, {}, new Date());

      expect([await notify(), await notify(), reads]).to.deep.equal([0, 0, 1]);
      // Each change is made by the other process; this one's very next notice sees it.
      const created = await there.post("/v1/webhooks", { url: receiver.url("/targets") });
      expect(created.status).to.equal(201);
      const id = created.body.id as string;
      expect([await notify(), await notify(), reads]).to.deep.equal([1, 1, 2]);
      expect((await there.patch(`/v1/webhooks/${id}`, { enabled: false })).status).to.equal(200);
      expect(await notify()).to.equal(0);
      expect((await there.patch(`/v1/webhooks/${id}`, { enabled: true, eventTypes: ["automation_run.finished"] })).status).to.equal(200);
      expect([await notify(), await notify("automation_run.finished")]).to.deep.equal([0, 1]);
      // A rotation changes no target: nothing is read again.
      const before = reads;
      expect((await there.post(`/v1/webhooks/${id}/rotate-secret`, {})).status).to.equal(200);
      expect([await notify("automation_run.finished"), reads]).to.deep.equal([1, before]);
      expect((await there.delete(`/v1/webhooks/${id}`)).status).to.equal(200);
      expect(await notify("automation_run.finished")).to.equal(0);

      // Kept targets are read again after a minute even with no change (a writer may have died before its bump).
      let now = 0;
      const { redis, keys } = server.core.connections;
      const notices = new WebhookNotices(store, parts.deliveries, new OrgEpochs(redis, (o) => keys.webhookEpoch(o)), () => now);
      const counted = reads;
      await notices.notify(orgId, "deployment.status_changed", "aged-1", {}, new Date());
      now = 59_999;
      await notices.notify(orgId, "deployment.status_changed", "aged-2", {}, new Date());
      expect(reads).to.equal(counted + 1);
      now = 60_000;
      await notices.notify(orgId, "deployment.status_changed", "aged-3", {}, new Date());
      expect(reads).to.equal(counted + 2);
    } finally {
      store.enabled = enabled;
      await other.close();
    }
  });
});
