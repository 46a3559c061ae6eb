import { expect } from "chai";
import { useAnthropicService } from "./support/anthropic-service.js";
import { deploymentBody, deploymentsClient, readyDeployment } from "./support/deployments.js";
import { cli } from "./support/cli.js";
import { expectError } from "./support/expect.js";
import { until, userMessage } from "./support/sessions.js";

describe("deployments: credits", () => {
  const svc = useAnthropicService();
  const model = { model: "anthropic/claude-sonnet-4-6" };

  const eventsOf = async (api: any, d: any, thread = d.thread_id): Promise<any[]> =>
    (await api.get(`/v1/deployments/${d.deployment_id}/threads/${thread}/events?limit=100`)).body.data;
  const idle = (events: any[]) => events.filter((e) => e.type === "session.status_idle");

  it("refuses create and update with 402 insufficient_credits when the account has none", async () => {
    const { api } = await deploymentsClient(svc.server, undefined, undefined, 0);
    expect((await api.get("/v1/credits")).body).to.deep.equal({ metered: false, balance_usd: "0.000000" });
    const res = await api.post("/v1/deployments", deploymentBody());
    expectError(res, 402, "insufficient_credits");
    const { api: funded, orgId } = await deploymentsClient(svc.server);
    const d = await readyDeployment(funded);
    await svc.server.core.inner.credits.debit(orgId, "test-drain", 200_000_000);
    expectError(await funded.patch(`/v1/deployments/${d.deployment_id}`, { name: "New name" }), 402, "insufficient_credits");
    expect((await funded.patch(`/v1/deployments/${d.deployment_id}`, { name: d.name })).status, "a no-op needs no credits").to.equal(200);
    expectError(
      await funded.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage("hi")] }),
      402,
      "insufficient_credits",
    );
  });

  it("credits granted by the command line are usable at once, and shown at once", async () => {
    const org = `org-dep-grant-${process.pid}-${Date.now()}`;
    const { api } = await deploymentsClient(svc.server, undefined, org, 0);
    expectError(await api.post("/v1/deployments", deploymentBody()), 402, "insufficient_credits");
    const grant = await cli(["ops", "credits", "grant", "--org", org, "--usd", "5"]);
    expect(grant, grant.stderr).to.include({ code: 0, stdout: "balance: 5.000000 USD\n" });
    expect((await api.get("/v1/credits")).body).to.deep.equal({ metered: true, balance_usd: "5.000000" });
    expect((await api.post("/v1/deployments", deploymentBody())).status).to.equal(201);
  });

  it("debits each turn's cost, and refuses a turn before it starts once the balance is spent", async () => {
    const { api, orgId } = await deploymentsClient(svc.server, undefined, undefined, 1_000);
    const d = await readyDeployment(api, model);
    svc.fake.push({ text: "Hello.", usage: { input_tokens: 1_000, output_tokens: 500 } });
    expect((await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage("hi")] })).status).to.equal(202);
    const events = await until(
      () => eventsOf(api, d),
      (e) => idle(e).length >= 1,
      15_000,
      "the turn",
    );
    const cost = Math.round(idle(events)[0].usage.cost_usd * 1_000_000);
    expect(cost).to.be.greaterThan(1_000);
    const balance = await until(
      () => svc.server.core.inner.credits.balance(orgId),
      (b) => b.balanceMicros === 1_000 - cost,
      10_000,
      "the debit",
    );
    expect(balance.balanceMicros).to.be.lessThan(0);
    const shown = await until(
      () => api.get("/v1/credits"),
      (r) => r.body.balance_usd === `-${((cost - 1_000) / 1e6).toFixed(6)}`,
      5_000,
      "the balance shown",
    );
    expect(shown.body.metered).to.equal(true);
    expectError(
      await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage("again")] }),
      402,
      "insufficient_credits",
    );

    // A turn that starts without a request of the caller (an automation run) is refused before any model call.
    const automation = await api.post(`/v1/deployments/${d.deployment_id}/automations`, { prompt: "Report", schedule: "every 1h" });
    const modelCalls = svc.fake.requests.length;
    const run = await api.post(`/v1/deployments/${d.deployment_id}/automations/${automation.body.id}/trigger`);
    expect(run.body.status).to.equal("succeeded");
    const refused = await until(
      () => eventsOf(api, d, run.body.sessionId),
      (e) => idle(e).length >= 1,
      15_000,
      "the refused turn",
    );
    expect(idle(refused)[0].payload.stop_reason).to.deep.include({ type: "error" });
    expect(idle(refused)[0].payload.stop_reason.message).to.match(/^insufficient credits/);
    expect(svc.fake.requests.length, "no model call").to.equal(modelCalls);
  });
});
