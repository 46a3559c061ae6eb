import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { deploymentsClient, readyDeployment, runTool } from "./support/deployments.js";
import { expectError } from "./support/expect.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { until } from "./support/sessions.js";

const skill = (name: string) => `---\nname: ${name}\ndescription: Use when ${name} is asked for.\n---\nDo the thing.\n`;

describe("deployments: what a delete destroys", () => {
  let server: TestServer;
  let api: Client;
  let core: Client;

  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: await mkdtemp(join(tmpdir(), "dep-teardown-")) });
    const org = `org-teardown-${Date.now()}`;
    ({ api } = await deploymentsClient(server, undefined, org));
    core = client(server.url, await server.newKey(org));
  });
  after(async () => server.close());

  // After a delete no interface reaches what the deployment had: its stores are read directly.
  const db = () => server.core.connections.mongo.db;
  const count = (collection: string, filter: Record<string, unknown>) => db().collection(collection).countDocuments(filter);
  /** The deployment's agent id, as its record keeps it (no interface shows it). */
  const agentIdOf = async (id: string): Promise<string> =>
    (
      (await db()
        .collection("deployments")
        .findOne({ _id: id } as never)) as unknown as { agentId: string }
    ).agentId;
  /** Waits for the teardown to finish: the record is removed last. */
  const tornDown = (id: string) =>
    until(
      () =>
        db()
          .collection("deployments")
          .findOne({ _id: id } as never),
      (doc) => doc === null,
      15_000,
      "the teardown",
    );

  it("destroys the agent's memories, skills and automations (their runs and schedule too), the agent and its versions", async () => {
    const d = await readyDeployment(api, { features: { steering: false } });
    const agentId = await agentIdOf(d.deployment_id);
    expect(await runTool(api, d, d.thread_id, "memory", { action: "add", content: "Prefers email." })).to.match(/^Remembered/);
    await runTool(api, d, d.thread_id, "skill_manage", { action: "create", name: "triage", content: skill("triage") });
    const automation = await api.post(`/v1/deployments/${d.deployment_id}/automations`, { name: "Digest", prompt: "Summarize the day", schedule: "every 1h" });
    expect(automation.status).to.equal(201);
    expect((await api.post(`/v1/deployments/${d.deployment_id}/automations/${automation.body.id}/trigger`)).body.status).to.equal("succeeded");
    expect((await api.patch(`/v1/deployments/${d.deployment_id}`, { system_prompt: "A second version." })).status).to.equal(200);
    const [due] = server.core.connections.keys.automationQueueKeys();
    expect(await server.core.connections.redis.zscore(due, automation.body.id), "scheduled").to.not.equal(null);
    const kept = async () => ({
      memories: await count("memories", { agentId }),
      skills: await count("subject_skills", { agentId }),
      automations: await count("automations", { agentId }),
      runs: await count("automation_runs", { automationId: automation.body.id }),
      versions: await count("agent_versions", { agentId }),
      agents: await count("agents", { _id: agentId }),
      threads: await count("sessions", { agentId }),
    });
    expect(await kept()).to.deep.equal({ memories: 1, skills: 1, automations: 1, runs: 1, versions: 2, agents: 1, threads: 2 });

    expect((await api.delete(`/v1/deployments/${d.deployment_id}`)).status).to.equal(200);
    await tornDown(d.deployment_id);
    expect(await kept()).to.deep.equal({ memories: 0, skills: 0, automations: 0, runs: 0, versions: 0, agents: 0, threads: 0 });
    expect(await server.core.connections.redis.zscore(due, automation.body.id), "unscheduled").to.equal(null);
  });

  it("makes no thread of a deleted deployment from the answer to its delete on, through either interface", async () => {
    const d = await readyDeployment(api);
    const agentId = await agentIdOf(d.deployment_id);
    expect((await api.delete(`/v1/deployments/${d.deployment_id}`)).status).to.equal(200);
    expectError(await api.post(`/v1/deployments/${d.deployment_id}/threads`, {}), 404, "not_found");
    // The core interface reaches the agent itself: archived (or, once the teardown is done, gone).
    const made = await core.post("/v1/sessions", { agentId, subjectId: d.customer_id });
    expect([404, 409], JSON.stringify(made.body)).to.include(made.status);
    await tornDown(d.deployment_id);
    expect(await count("sessions", { agentId })).to.equal(0);
  });

  it("leaves no thread behind that was being created while the deployment was deleted, and refuses new ones at once", async () => {
    const d = await readyDeployment(api);
    const agentId = await agentIdOf(d.deployment_id);
    const create = () => api.post(`/v1/deployments/${d.deployment_id}/threads`, {});
    const racing = Array.from({ length: 12 }, () => create());
    expect((await api.delete(`/v1/deployments/${d.deployment_id}`)).status).to.equal(200);
    expectError(await create(), 404, "not_found");
    const answers = await Promise.all(racing);
    // 429: past the customer's conversations allowance (5 a minute), refused before anything is made.
    for (const res of answers) expect([201, 404, 429], JSON.stringify(res.body)).to.include(res.status);
    await tornDown(d.deployment_id);
    expect(await count("sessions", { agentId }), "threads of the deleted deployment").to.equal(0);
    for (const res of answers.filter((r) => r.status === 201)) expect((await core.get(`/v1/sessions/${res.body.thread_id}`)).status).to.equal(404);
  });
});
