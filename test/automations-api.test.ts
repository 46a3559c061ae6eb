import { expect } from "chai";
import { createAgent, newSubject, newTenant } from "./support/api.js";
import { automationDeployment, automationsPath, HOUR, ManualClock, MINUTE } from "./support/automations.js";
import { expectError } from "./support/expect.js";
import type { Client, TestServer } from "./support/server.js";

describe("automations: the API", function () {
  this.timeout(60_000);
  const clock = new ManualClock(Date.parse("2026-11-22T10:15:00Z"));
  let deployment: Awaited<ReturnType<typeof automationDeployment>>;
  let server: TestServer;
  let api: Client;
  let agent: any;

  before(async () => {
    deployment = await automationDeployment("auta", clock);
    server = deployment.servers[0]!;
    api = await newTenant(server);
    agent = await createAgent(api, {
      skills: [
        { name: "report", content: "Write a short report." },
        { name: "tone", content: "Be brief." },
      ],
    });
  });
  after(async () => deployment?.close());

  it("creates an automation with every form of schedule, normalized, described, with its next run and counters", async () => {
    const subject = newSubject();
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { schedule: "2026-12-01T09:00:00Z" },
        { schedule: "2026-12-01T09:00:00.000Z", scheduleDisplay: "once at 2026-12-01 09:00 UTC", nextRunAt: "2026-12-01T09:00:00.000Z" },
      ],
      [{ schedule: "30m" }, { schedule: "2026-11-22T10:45:00.000Z", scheduleDisplay: "once at 2026-11-22 10:45 UTC", nextRunAt: "2026-11-22T10:45:00.000Z" }],
      [{ schedule: "every 2h" }, { schedule: "every 2h", scheduleDisplay: "every 2 hours", nextRunAt: "2026-11-22T12:15:00.000Z" }],
      [
        { schedule: "0 9 * * *" },
        { schedule: "0 9 * * *", timezone: "UTC", scheduleDisplay: "At 09:00, every day (UTC)", nextRunAt: "2026-11-23T09:00:00.000Z" },
      ],
      [
        { schedule: "0 9 * * *", timezone: "Asia/Tokyo" },
        { timezone: "Asia/Tokyo", scheduleDisplay: "At 09:00, every day (Asia/Tokyo)", nextRunAt: "2026-11-23T00:00:00.000Z" },
      ],
    ];
    for (const [extra, expected] of cases) {
      const res = await api.post(automationsPath(agent.id, subject), { name: "Daily report", prompt: "Report on yesterday.", skills: ["report"], ...extra });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.include({
        type: "automation",
        agentId: agent.id,
        subjectId: subject,
        name: "Daily report",
        prompt: "Report on yesterday.",
        state: "active",
        enabled: true,
        repeat: null,
        runCount: 0,
        failedRunCount: 0,
        completedOccurrences: 0,
        lastRun: null,
        ...expected,
      });
      expect(res.body.skills).to.deep.equal(["report"]);
      expect(res.body.id).to.match(/^aut_/);
    }
  });

  it("refuses bad bodies and schedules with a 400 that names the problem", async () => {
    const path = automationsPath(agent.id, newSubject());
    const bad: [Record<string, unknown>, string | RegExp][] = [
      [{ schedule: "every 2h" }, /prompt/],
      [{ prompt: "p" }, /schedule/],
      [{ prompt: "p", schedule: "every 2h", name: "n".repeat(201) }, /name/],
      [{ prompt: "p".repeat(5001), schedule: "every 2h" }, /prompt/],
      [{ prompt: "p", schedule: "every 2h", skills: Array.from({ length: 65 }, (_, i) => `s${i}`) }, /skills/],
      [{ prompt: "p", schedule: "every 2h", repeat: 0 }, /repeat/],
      [{ prompt: "p", schedule: "every 2h", enabled: "yes" }, /enabled/],
      [{ prompt: "p", schedule: "every 2h", skills: ["nope"] }, "skills[0]: must be a skill of the agent's latest version"],
      [{ prompt: "p", schedule: "every 30s" }, "schedule: the interval must be at least 1m"],
      [{ prompt: "p", schedule: "2026-11-22T10:00:00Z" }, "schedule: the time must be in the future"],
      [{ prompt: "p", schedule: "61 * * * *" }, /^schedule: the cron expression's minute field must be/],
      [{ prompt: "p", schedule: "tomorrow" }, /^schedule: must be an ISO timestamp/],
      [{ prompt: "p", schedule: "every 2h", timezone: "Europe/Paris" }, /^timezone: applies to cron expressions only/],
      [{ prompt: "p", schedule: "0 9 * * *", timezone: "Mars/Olympus" }, "timezone: must be an IANA time zone name (e.g. Europe/Paris)"],
    ];
    for (const [body, message] of bad) {
      const res = await api.post(path, body);
      expectError(res, 400, "validation_error");
      if (typeof message === "string") expect(res.body.message, JSON.stringify(body).slice(0, 80)).to.equal(message);
      else expect(res.body.message, JSON.stringify(body).slice(0, 80)).to.match(message);
    }
    expectError(await api.patch(`${path}/aut_missing`, { name: "x" }), 404, "not_found");
  });

  it("reads, lists per subject and per agent (paginated, newest first), and hides another organization's", async () => {
    const [alice, bob] = [newSubject("alice"), newSubject("bob")];
    const made: string[] = [];
    for (const subject of [alice, alice, bob]) made.push((await api.post(automationsPath(agent.id, subject), { prompt: "p", schedule: "every 1h" })).body.id);
    const one = await api.get(`${automationsPath(agent.id, alice)}/${made[0]}`);
    expect(one.status).to.equal(200);
    expect(one.body.id).to.equal(made[0]);
    const mine = await api.get(`${automationsPath(agent.id, alice)}?limit=1`);
    expect(mine.body.data.map((a: any) => a.id)).to.deep.equal([made[1]]);
    expect(mine.body.pagination).to.deep.equal({ limit: 1, offset: 0, hasMore: true });
    const next = await api.get(`${automationsPath(agent.id, alice)}?limit=1&offset=1`);
    expect(next.body.data.map((a: any) => a.id)).to.deep.equal([made[0]]);
    const all = await api.get(`/v1/agents/${agent.id}/automations?limit=100`);
    expect(all.body.data.map((a: any) => a.id)).to.include.members(made);
    // The path names the automation's own agent and subject; another's path is 404.
    expectError(await api.get(`${automationsPath(agent.id, bob)}/${made[0]}`), 404, "not_found");
    const other = await newTenant(server);
    expectError(await other.get(`${automationsPath(agent.id, alice)}/${made[0]}`), 404, "not_found");
    expectError(await other.post(`${automationsPath(agent.id, alice)}/${made[0]}/trigger`), 404, "not_found");
    expectError(await other.delete(`${automationsPath(agent.id, alice)}/${made[0]}`), 404, "not_found");
    expectError(await other.post(automationsPath(agent.id, alice), { prompt: "p", schedule: "every 1h" }), 404, "not_found");
    expectError(await other.get(`/v1/agents/${agent.id}/automations`), 404, "not_found");
    expectError(await other.get(automationsPath(agent.id, alice)), 404, "not_found");
    expectError(await api.get("/v1/agents/agt_none/automations"), 404, "not_found");
    expect((await api.get(automationsPath(agent.id, newSubject()))).body.data).to.deep.equal([]);
  });

  it("PATCH changes any subset: the next run moves only with the schedule; repeat null removes the limit; enabled false is disabled", async () => {
    const path = automationsPath(agent.id, newSubject());
    const created = (await api.post(path, { prompt: "p", schedule: "every 1h", repeat: 3 })).body;
    const url = `${path}/${created.id}`;
    clock.advance(10 * MINUTE);
    let res = await api.patch(url, { name: "Renamed", prompt: "New prompt", skills: ["tone"] });
    expect(res.body).to.include({ name: "Renamed", prompt: "New prompt", nextRunAt: created.nextRunAt, repeat: 3 });
    res = await api.patch(url, { repeat: null });
    expect(res.body.repeat).to.equal(null);
    res = await api.patch(url, { schedule: "0 9 * * *", timezone: "Europe/Paris" });
    expect(res.body).to.include({ schedule: "0 9 * * *", timezone: "Europe/Paris", nextRunAt: "2026-11-23T08:00:00.000Z" });
    res = await api.patch(url, { timezone: null });
    expect(res.body).to.include({ timezone: "UTC", nextRunAt: "2026-11-23T09:00:00.000Z" });
    res = await api.patch(url, { enabled: false });
    expect(res.body).to.include({ state: "disabled", enabled: false, nextRunAt: null });
    res = await api.patch(url, { enabled: true });
    expect(res.body).to.include({ state: "active", nextRunAt: "2026-11-23T09:00:00.000Z" });
    res = await api.patch(url, { schedule: "every 2h" });
    expect(res.body).to.include({ schedule: "every 2h", timezone: "UTC", nextRunAt: new Date(clock.now() + 2 * HOUR).toISOString() });
    expectError(await api.patch(url, {}), 400, "validation_error");
    expectError(await api.patch(url, { timezone: "Europe/Paris" }), 400, "validation_error");
    expectError(await api.patch(url, { skills: ["nope"] }), 400, "validation_error");
    expectError(await api.patch(url, { customerId: "x" }), 400, "validation_error");
  });

  it("pause and resume are idempotent; resume takes the next eligible occurrence from now", async () => {
    const path = automationsPath(agent.id, newSubject());
    const created = (await api.post(path, { prompt: "p", schedule: "every 1h" })).body;
    const url = `${path}/${created.id}`;
    for (let i = 0; i < 2; i++) expect((await api.post(`${url}/pause`)).body).to.include({ state: "paused", nextRunAt: null });
    clock.advance(3 * HOUR + 20 * MINUTE);
    const resumed = (await api.post(`${url}/resume`)).body;
    expect(resumed).to.include({ state: "active", nextRunAt: new Date(Date.parse(created.nextRunAt) + 3 * HOUR).toISOString() });
    expect((await api.post(`${url}/resume`)).body.nextRunAt).to.equal(resumed.nextRunAt);
  });

  it("delete stops future runs and answers the deleted object; creating for an archived agent is refused", async () => {
    const path = automationsPath(agent.id, newSubject());
    const created = (await api.post(path, { prompt: "p", schedule: "every 1h" })).body;
    const res = await api.delete(`${path}/${created.id}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ object: "automation.deleted", id: created.id, deleted: true });
    expectError(await api.get(`${path}/${created.id}`), 404, "not_found");
    expectError(await api.delete(`${path}/${created.id}`), 404, "not_found");
    const archived = await createAgent(api);
    await api.post(`/v1/agents/${archived.id}/archive`);
    expectError(await api.post(automationsPath(archived.id, newSubject()), { prompt: "p", schedule: "every 1h" }), 409, "invalid_state");
    expectError(await api.post(automationsPath("agt_missing", newSubject()), { prompt: "p", schedule: "every 1h" }), 404, "not_found");
  });
});
