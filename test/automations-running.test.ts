import { expect } from "chai";
import type { Scheduler } from "../src/automations/scheduler.js";
import { createAgent, newSubject, newTenant } from "./support/api.js";
import { automationDeployment, automationsPath, HOUR, ManualClock, MINUTE, schedulerOf } from "./support/automations.js";
import { expectError } from "./support/expect.js";
import type { Client, TestServer } from "./support/server.js";

describe("automations: running occurrences", function () {
  this.timeout(60_000);
  const clock = new ManualClock(Date.parse("2026-11-22T10:15:00Z"));
  let deployment: Awaited<ReturnType<typeof automationDeployment>>;
  let server: TestServer;
  let scheduler: Scheduler;
  let api: Client;
  let agent: any;

  before(async () => {
    deployment = await automationDeployment("autr", clock);
    server = deployment.servers[0]!;
    scheduler = schedulerOf(server, clock);
    api = await newTenant(server);
    agent = await createAgent(api, { skills: [{ name: "report", content: "Write a short report." }] });
  });
  after(async () => deployment?.close());

  async function create(body: Record<string, unknown>, agentId = agent.id) {
    const subject = newSubject();
    const res = await api.post(automationsPath(agentId, subject), { prompt: "Summarize the day.", ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { url: `${automationsPath(agentId, subject)}/${res.body.id}`, subject, created: res.body };
  }
  const read = async (url: string) => (await api.get(url)).body;
  const runsOf = async (url: string) => (await api.get(`${url}/runs?limit=100`)).body.data;
  /** Moves the clock and lets the scheduler fire what fell due. */
  async function at(ms: number) {
    clock.advance(ms);
    await scheduler.runDue();
  }

  it("each occurrence is a fresh session for the subject, prompted with the skills; repeat stops after that many", async () => {
    const { url, subject, created } = await create({ name: "Daily summary", schedule: "every 1h", skills: ["report"], repeat: 2 });
    await at(HOUR);
    let a = await read(url);
    expect(a).to.include({
      runCount: 1,
      completedOccurrences: 1,
      failedRunCount: 0,
      state: "active",
      nextRunAt: new Date(Date.parse(created.nextRunAt) + HOUR).toISOString(),
    });
    expect(a.lastRun).to.include({ status: "succeeded", error: null });
    const first = a.lastRun.sessionId;
    const session = (await api.get(`/v1/sessions/${first}`)).body;
    expect(session).to.include({ agentId: agent.id, subjectId: subject, title: "Daily summary" });
    expect(session.metadata).to.deep.equal({ automationId: created.id, automationRunId: a.lastRun.id });
    const events = (await api.get(`/v1/sessions/${first}/events`)).body.data;
    const prompt = events.find((e: any) => e.type === "user.message");
    expect(prompt.payload.content).to.deep.equal([
      { type: "text", text: "Summarize the day." },
      { type: "text", text: "Apply these skills to this task: report." },
    ]);
    await scheduler.runDue();
    expect((await read(url)).runCount).to.equal(1);
    await at(HOUR);
    a = await read(url);
    expect(a).to.include({ runCount: 2, completedOccurrences: 2, state: "completed", nextRunAt: null });
    await at(HOUR);
    expect((await read(url)).runCount).to.equal(2);
    const sessions = (await api.get(`${url}/sessions`)).body;
    expect(sessions.data.map((s: any) => s.id))
      .to.have.length(2)
      .and.include(first);
    expect(sessions.data[0].id).to.equal(a.lastRun.sessionId);
    const runs = await runsOf(url);
    expect(runs.map((r: any) => [r.trigger, r.status, r.scheduledFor])).to.deep.equal([
      ["schedule", "succeeded", new Date(Date.parse(created.nextRunAt) + HOUR).toISOString()],
      ["schedule", "succeeded", created.nextRunAt],
    ]);
  });

  it("a scheduler that comes late fires the missed occurrence once, then the next one from now", async () => {
    const { url, created } = await create({ schedule: "every 1h" });
    await at(5 * HOUR + 10 * MINUTE);
    const a = await read(url);
    expect(a.runCount).to.equal(1);
    expect(a.nextRunAt).to.equal(new Date(Date.parse(created.nextRunAt) + 5 * HOUR).toISOString());
  });

  it("pause stops occurrences and keeps history; resume brings no burst of the missed ones", async () => {
    const { url } = await create({ schedule: "every 1h" });
    await at(HOUR);
    await api.post(`${url}/pause`);
    await at(3 * HOUR);
    expect((await read(url)).runCount).to.equal(1);
    const resumed = (await api.post(`${url}/resume`)).body;
    expect(Date.parse(resumed.nextRunAt)).to.be.within(clock.now() + 1, clock.now() + HOUR);
    await at(Date.parse(resumed.nextRunAt) - clock.now());
    expect((await read(url)).runCount).to.equal(2);
    expect((await api.get(`${url}/sessions`)).body.data).to.have.length(2);
  });

  it("trigger runs now in a fresh session and leaves nextRunAt alone, whatever the state", async () => {
    const { url, created } = await create({ schedule: "every 1h" });
    await api.post(`${url}/pause`);
    const res = await api.post(`${url}/trigger`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ type: "automation_run", automationId: created.id, trigger: "manual", status: "succeeded", scheduledFor: null, error: null });
    expect((await api.get(`/v1/sessions/${res.body.sessionId}`)).status).to.equal(200);
    await api.post(`${url}/resume`);
    const again = (await api.post(`${url}/trigger`)).body;
    const a = await read(url);
    expect(a).to.include({ runCount: 2, completedOccurrences: 0, state: "active", nextRunAt: created.nextRunAt });
    expect(a.lastRun.sessionId).to.equal(again.sessionId);
  });

  it("delete stops future runs and keeps past sessions; enabled false behaves as paused; a one-time schedule runs once", async () => {
    const recurring = await create({ schedule: "every 1h" });
    await at(HOUR);
    const past = (await read(recurring.url)).lastRun.sessionId;
    await api.delete(recurring.url);
    const disabled = await create({ schedule: "every 1h", enabled: false });
    expect(disabled.created).to.include({ state: "disabled", nextRunAt: null });
    const once = await create({ schedule: "30m" });
    await at(2 * HOUR);
    expect((await api.get(`/v1/sessions?subjectId=${recurring.subject}`)).body.data.map((s: any) => s.id)).to.deep.equal([past]);
    expect((await api.get(`/v1/sessions?subjectId=${disabled.subject}`)).body.data).to.deep.equal([]);
    expect(await read(once.url)).to.include({ runCount: 1, completedOccurrences: 1, state: "completed", nextRunAt: null });
    await at(2 * HOUR);
    expect((await read(once.url)).runCount).to.equal(1);
  });

  it("an occurrence refused by the conversation allowance is a failed run with its reason, and the schedule goes on", async () => {
    const limited = await createAgent(api);
    await api.patch(`/v1/agents/${limited.id}/rate-limits`, { conversationsPerMinute: 1 });
    const { url, subject, created } = await create({ schedule: "every 1h" }, limited.id);
    // The allowance counts in real minutes: start well inside one, so the refusals below share it.
    while (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 200));
    expect((await api.post("/v1/sessions", { agentId: limited.id, subjectId: subject })).status).to.equal(201);
    await at(HOUR);
    const a = await read(url);
    expect(a).to.include({
      runCount: 1,
      failedRunCount: 1,
      completedOccurrences: 0,
      state: "active",
      nextRunAt: new Date(Date.parse(created.nextRunAt) + HOUR).toISOString(),
    });
    expect(a.lastRun).to.include({
      status: "failed",
      sessionId: null,
      error: "the conversations allowance of 1 per minute for this agent and subject is exhausted",
    });
    expectError(await api.post(`${url}/trigger`), 429, "rate_limited");
    const runs = await runsOf(url);
    expect(runs.map((r: any) => [r.trigger, r.status, r.sessionId])).to.deep.equal([
      ["manual", "failed", null],
      ["schedule", "failed", null],
    ]);
    expect(runs[1].error).to.match(/allowance/);
    expect((await api.get(`${url}/sessions`)).body.data).to.deep.equal([]);
  });

  it("an occurrence whose agent was archived, or deleted, is a failed run with its reason; the automation stays", async () => {
    const doomed = await createAgent(api);
    const { url } = await create({ schedule: "every 1h" }, doomed.id);
    await api.post(`/v1/agents/${doomed.id}/archive`);
    await at(HOUR);
    expect((await read(url)).lastRun).to.include({ status: "failed", error: "the agent is archived and accepts no new sessions" });
    expect((await api.delete(`/v1/agents/${doomed.id}`)).status).to.equal(200);
    await at(HOUR);
    const a = await read(url);
    expect(a).to.include({ runCount: 2, failedRunCount: 2, state: "active" });
    expect(a.lastRun).to.include({ status: "failed", error: "agent not found" });
    // Still listed under the deleted agent's id, where it can be deleted.
    expect((await api.get(`/v1/agents/${doomed.id}/automations`)).body.data.map((x: any) => x.id)).to.deep.equal([a.id]);
  });

  it("a cron expression in a time zone follows its daylight-saving changes", async () => {
    clock.set("2026-03-28T00:00:00Z");
    const { url, created } = await create({ schedule: "0 9 * * *", timezone: "Europe/Paris" });
    expect(created.nextRunAt).to.equal("2026-03-28T08:00:00.000Z");
    await at(8 * HOUR);
    expect((await read(url)).nextRunAt).to.equal("2026-03-29T07:00:00.000Z");
    await at(23 * HOUR);
    const a = await read(url);
    expect(a).to.include({ runCount: 2, nextRunAt: "2026-03-30T07:00:00.000Z" });
    expect((await runsOf(url)).map((r: any) => r.scheduledFor)).to.deep.equal(["2026-03-29T07:00:00.000Z", "2026-03-28T08:00:00.000Z"]);
  });
});
