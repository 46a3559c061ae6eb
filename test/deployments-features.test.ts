import { expect } from "chai";
import { deploymentsClient, readyDeployment } from "./support/deployments.js";
import { expectError } from "./support/expect.js";
import { until, userMessage } from "./support/sessions.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

describe("deployments: features", () => {
  let server: TestServer;
  let api: Client;

  before(async () => {
    server = await startServer();
    ({ api } = await deploymentsClient(server));
  });
  after(async () => server.close());

  const eventsOf = async (d: any, thread = d.thread_id): Promise<any[]> =>
    (await api.get(`/v1/deployments/${d.deployment_id}/threads/${thread}/events?limit=100`)).body.data;
  const idleCount = (events: any[]) => events.filter((e) => e.type === "session.status_idle").length;
  const send = (d: any, text: string) => api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage(text)] });

  it("steering on: a tool call waits for a human's approval; off: it runs without asking", async () => {
    const steered = await readyDeployment(api);
    await send(steered, "/tool todo {}");
    const asked = await until(
      () => eventsOf(steered),
      (e) => idleCount(e) >= 1,
      15_000,
      "the pause",
    );
    expect(asked.map((e) => e.type)).to.include("agent.approval_request");
    expect(asked.at(-1).payload.stop_reason.type).to.equal("requires_action");

    const free = await readyDeployment(api, { features: { steering: false } });
    await send(free, "/tool todo {}");
    const ran = await until(
      () => eventsOf(free),
      (e) => idleCount(e) >= 1,
      15_000,
      "the turn",
    );
    expect(ran.map((e) => e.type)).to.not.include("agent.approval_request");
    expect(ran.map((e) => e.type)).to.include("agent.tool_result");
  });

  it("automations run in fresh threads of the deployment; turned off, new ones are refused and runs fail with the reason", async () => {
    const d = await readyDeployment(api);
    const created = await api.post(`/v1/deployments/${d.deployment_id}/automations`, { name: "Digest", prompt: "Summarize the day", schedule: "every 1h" });
    expect(created.status).to.equal(201);
    const one = `/v1/deployments/${d.deployment_id}/automations/${created.body.id}`;
    expect((await api.get(one)).body.subjectId).to.equal(d.customer_id);
    expect((await api.get(`/v1/deployments/${d.deployment_id}/automations`)).body.data.map((a: any) => a.id)).to.deep.equal([created.body.id]);
    const run = await api.post(`${one}/trigger`);
    expect(run.status).to.equal(200);
    expect(run.body.status).to.equal("succeeded");
    const thread = await api.get(`/v1/deployments/${d.deployment_id}/threads/${run.body.sessionId}`);
    expect(thread.status, "the run's session is a thread of the deployment").to.equal(200);
    expect(thread.body.title).to.equal("Digest");

    await api.patch(`/v1/deployments/${d.deployment_id}`, { features: { automations: false } });
    const refused = await api.post(`${one}/trigger`);
    expectError(refused, 409, "invalid_state");
    expect(refused.body.message).to.equal("automations are turned off for this deployment (features.automations)");
    const runs = (await api.get(`${one}/runs`)).body.data;
    expect(runs[0]).to.include({ status: "failed", error: "automations are turned off for this deployment (features.automations)" });
    expectError(await api.post(`/v1/deployments/${d.deployment_id}/automations`, { prompt: "x", schedule: "every 1h" }), 409, "invalid_state");

    await api.patch(`/v1/deployments/${d.deployment_id}`, { features: { automations: true } });
    expect((await api.post(`${one}/trigger`)).body.status).to.equal("succeeded");
    expect((await api.delete(one)).body).to.deep.equal({ object: "automation.deleted", id: created.body.id, deleted: true });
  });

  it("keeps another deployment's automations out of reach", async () => {
    const d = await readyDeployment(api);
    const other = await readyDeployment(api, { customer_id: "cus_other" });
    const created = await api.post(`/v1/deployments/${d.deployment_id}/automations`, { prompt: "Ping", schedule: "every 1h" });
    expectError(await api.get(`/v1/deployments/${other.deployment_id}/automations/${created.body.id}`), 404, "not_found");
    const { api: stranger } = await deploymentsClient(server);
    expectError(await stranger.get(`/v1/deployments/${d.deployment_id}/automations/${created.body.id}`), 404, "not_found");
  });
});
