import { expect } from "chai";
import pLimit from "p-limit";
import { eventually, newSubject } from "./support/api.js";
import { automationDeployment, ManualClock } from "./support/automations.js";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import type { TestServer } from "./support/server.js";

/** Real scheduler processes on the system clock: one killed with SIGKILL while it holds claims, another finishing its work. */
describe("automations: a scheduler process killed mid-work", function () {
  this.timeout(120_000);
  const COUNT = 200;
  let deployment: Awaited<ReturnType<typeof automationDeployment>>;
  let server: TestServer;
  const processes: ServiceProcess[] = [];

  before(async () => {
    deployment = await automationDeployment("autk", new ManualClock(Date.now()));
    server = deployment.servers[0]!;
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop("SIGKILL")));
    await deployment?.close();
  });

  it("its claims lapse, another scheduler takes them over, and every occurrence fires once", async () => {
    const s = server.core;
    const orgId = await s.stores.organizations.ensureOrganization(`org-crash-${process.pid}-${Date.now()}`);
    const agent = await s.services.agents.create(orgId, { name: "crash", modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [] });
    const limit = pLimit(16);
    const subjects = Array.from({ length: COUNT }, () => newSubject("crash"));
    const made = await Promise.all(
      subjects.map((subject) => limit(() => s.services.automations.create(orgId, agent._id, subject, { prompt: "Check in.", schedule: "1d" }))),
    );
    const settings = {
      REDIS_KEY_PREFIX: s.process.config.redisKeyPrefix,
      MONGO_URL: s.process.config.mongoUrl,
      AUTOMATION_CLAIM_LEASE_MS: "2000",
      SCHEDULER_CONCURRENCY: "2",
      CLAIM_IDLE_MS: "3600000",
    };
    const doomed = await startProcess("scheduler", settings);
    processes.push(doomed);

    // Every one due now, as the clock reaching their time would make them.
    const at = new Date();
    const db = s.connections.mongo.db;
    await db.collection("automations").updateMany({ _id: { $in: made.map((a) => a._id) } as never }, { $set: { "schedule.at": at.getTime(), nextRunAt: at } });
    await s.redis.automationQueue.scheduleMany(made.map((a) => ({ id: a._id, at: at.getTime() })));
    const runs = db.collection("automation_runs");
    const [, claims] = s.connections.keys.automationQueueKeys();
    // Killed in the middle of a batch: some runs done, several claims held (a dead process releases none).
    const midBatch = async () => (await runs.countDocuments({ status: "succeeded" })) >= 20 && (await s.connections.redis.zcard(claims)) >= 2;
    await eventually("the first scheduler mid-batch", async () => ((await midBatch()) ? true : undefined), 30_000);
    await doomed.stop("SIGKILL");
    const held = await s.connections.redis.zcard(claims);
    const done = await runs.countDocuments({ status: "succeeded" });
    expect(held, "claims the killed scheduler held").to.be.greaterThan(0);
    expect(done).to.be.lessThan(COUNT);

    processes.push(await startProcess("scheduler", settings));
    await eventually("every occurrence", async () => ((await runs.countDocuments({ status: "succeeded" })) === COUNT ? true : undefined), 60_000);
    const sessions = await db
      .collection("sessions")
      .find({ subjectId: { $in: subjects } })
      .toArray();
    expect(sessions).to.have.length(COUNT);
    expect(new Set(sessions.map((x) => x.subjectId)).size).to.equal(COUNT);
    const counted = await db.collection("automations").countDocuments({ _id: { $in: made.map((a) => a._id) } as never, completedOccurrences: 1, runCount: 1 });
    expect(counted).to.equal(COUNT);
    expect(await s.connections.redis.zcard(claims)).to.equal(0);
  });
});
