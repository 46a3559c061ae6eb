import { expect } from "chai";
import pLimit from "p-limit";
import type { Scheduler } from "../src/automations/scheduler.js";
import { summaryOf } from "../src/automations/automation-occurrences.js";
import { AutomationRunner } from "../src/automations/automation-runs.js";
import { AutomationRunStore, occurrenceRunId } from "../src/automations/store/automation-runs.js";
import { createAgent, newSubject } from "./support/api.js";
import { automationDeployment, automationsPath, HOUR, LEASE_MS, ManualClock, schedulerOf } from "./support/automations.js";
import { client, type Client, type TestServer } from "./support/server.js";

describe("automations: durable, exactly once", function () {
  this.timeout(300_000);
  const clock = new ManualClock(Date.parse("2026-11-22T10:15:00Z"));
  let deployment: Awaited<ReturnType<typeof automationDeployment>>;
  let one: TestServer;
  let two: TestServer;
  let first: Scheduler;
  let second: Scheduler;
  let api: Client;
  let orgId: string;
  let agent: any;

  before(async () => {
    deployment = await automationDeployment("autd", clock, 2);
    [one, two] = deployment.servers as [TestServer, TestServer];
    [first, second] = [schedulerOf(one, clock), schedulerOf(two, clock)];
    orgId = await one.core.stores.organizations.ensureOrganization(`org-durable-${process.pid}-${Date.now()}`);
    api = client(one.url, (await one.core.stores.organizations.createKey(orgId)).key);
    agent = await createAgent(api);
  });
  after(async () => deployment?.close());

  async function create(schedule = "every 1h") {
    const subject = newSubject();
    const a = await one.core.services.automations.create(orgId, agent.id, subject, { prompt: "Check in.", schedule });
    return { id: a._id, subject, url: `${automationsPath(agent.id, subject)}/${a._id}` };
  }
  const sessionsOf = async (subject: string) => (await api.get(`/v1/sessions?subjectId=${encodeURIComponent(subject)}`)).body.data;
  const prompts = async (sessionId: string) => (await api.get(`/v1/sessions/${sessionId}/events`)).body.data.filter((e: any) => e.type === "user.message");

  it("two schedulers racing over 1,000 due occurrences fire each once", async () => {
    const limit = pLimit(16);
    // One-time: fired, they are done, and the later tests' schedulers see only their own.
    const made = await Promise.all(Array.from({ length: 1_000 }, () => limit(() => create("30m"))));
    clock.advance(HOUR);
    const started = Date.now();
    const [a, b] = await Promise.all([first.runDue(), second.runDue()]);
    const db = one.core.connections.mongo.db;
    const ids = made.map((m) => m.id);
    const runs = await db
      .collection("automation_runs")
      .find({ automationId: { $in: ids } })
      .toArray();
    // Every session of the 1,000 subjects, whatever made it: a second one for an occurrence would be here.
    const sessions = await db
      .collection("sessions")
      .find({ subjectId: { $in: made.map((m) => m.subject) } })
      .toArray();
    const counted = await db
      .collection("automations")
      .find({ _id: { $in: ids } as never, completedOccurrences: 1 })
      .toArray();
    process.stdout.write(`      1,000 occurrences settled in ${Date.now() - started} ms: ${a} claims by one scheduler, ${b} by the other\n`);
    expect(a + b).to.equal(1_000);
    expect(new Set(runs.map((r) => r.automationId)).size).to.equal(1_000);
    expect(runs).to.have.length(1_000);
    expect(runs.every((r) => r.status === "succeeded")).to.equal(true);
    expect(sessions).to.have.length(1_000);
    expect(new Set(sessions.map((s) => s.subjectId)).size).to.equal(1_000);
    expect(sessions.map((s) => s._id).sort()).to.deep.equal(runs.map((r) => r.sessionId).sort());
    expect(counted).to.have.length(1_000);
  });

  it("a scheduler killed between claim and fire: its claim lapses and the occurrence fires once", async () => {
    const { id, subject, url } = await create();
    clock.advance(HOUR);
    expect(await one.core.redis.automationQueue.claim(clock.now(), LEASE_MS, 10, "a-scheduler-that-died")).to.include(id);
    await second.runDue();
    expect(await sessionsOf(subject)).to.deep.equal([]);
    clock.advance(LEASE_MS + 1);
    await second.runDue();
    await first.runDue();
    expect(await sessionsOf(subject)).to.have.length(1);
    expect((await api.get(url)).body).to.include({ runCount: 1, completedOccurrences: 1 });
  });

  it("a scheduler killed after opening the run, creating the session, prompting it or counting it: recovery finishes it, with one session, one prompt, one count", async () => {
    const s = one.core;
    const runner = new AutomationRunner(s.stores.agents, s.services.sessions, s.services.events, s.redis.eventLog, s.inner.automationGate);
    const store = new AutomationRunStore(s.connections.mongo.db);
    for (const stage of ["opened", "created", "prompted", "counted"] as const) {
      const { id, subject, url } = await create();
      clock.advance(HOUR);
      await s.redis.automationQueue.claim(clock.now(), LEASE_MS, 10, "a-scheduler-that-died");
      const a = (await s.stores.automations.byId(id))!;
      const { run } = await store.open({
        _id: occurrenceRunId(id, a.nextRunAt!),
        orgId,
        automationId: id,
        trigger: "schedule",
        scheduledFor: a.nextRunAt,
        status: "pending",
        sessionId: `ses_${stage}${Date.now()}`,
        sessionCreated: false,
        error: null,
        createdAt: new Date(clock.now()),
        finishedAt: null,
      });
      if (stage === "created") await s.services.sessions.createOnce(orgId, { agentId: agent.id, subjectId: subject }, run.sessionId);
      if (stage === "prompted" || stage === "counted") await runner.execute(a, run, true);
      if (stage === "counted") {
        const finished = (await store.finish(run, { status: "succeeded", sessionId: run.sessionId }, new Date(clock.now())))!;
        await s.stores.automations.countOccurrence(id, a.nextRunAt!, summaryOf(finished), { runCount: 1, failedRunCount: 0, completedOccurrences: 1 });
      }
      clock.advance(LEASE_MS + 1);
      await Promise.all([first.runDue(), second.runDue()]);
      const sessions = await sessionsOf(subject);
      expect(
        sessions.map((x: any) => x.id),
        stage,
      ).to.deep.equal([run.sessionId]);
      expect(await prompts(run.sessionId), stage).to.have.length(1);
      expect((await api.get(url)).body, stage).to.include({
        runCount: 1,
        completedOccurrences: 1,
        failedRunCount: 0,
        nextRunAt: new Date(a.nextRunAt!.getTime() + HOUR).toISOString(),
      });
    }
  });

  it("the same occurrence fired by two schedulers at once (a lease that lapsed mid-run) still makes one session, counted once", async () => {
    const { id, subject, url } = await create();
    clock.advance(HOUR);
    await Promise.all([one.core.inner.occurrences.fire(id), two.core.inner.occurrences.fire(id), one.core.inner.occurrences.fire(id)]);
    const sessions = await sessionsOf(subject);
    expect(sessions).to.have.length(1);
    expect(await prompts(sessions[0].id)).to.have.length(1);
    expect((await api.get(url)).body).to.include({ runCount: 1, completedOccurrences: 1 });
  });

  it("a due set that lost its members is repaired from the records", async () => {
    const { subject } = await create();
    await one.core.connections.redis.del(one.core.connections.keys.automationQueueKeys()[0]);
    clock.advance(HOUR);
    await first.runDue();
    expect(await sessionsOf(subject)).to.deep.equal([]);
    expect(await first.repair()).to.be.greaterThan(0);
    // One repair per period: the other scheduler's turn has not come.
    expect(await second.repair()).to.equal(0);
    await second.runDue();
    expect(await sessionsOf(subject)).to.have.length(1);
  });
});
