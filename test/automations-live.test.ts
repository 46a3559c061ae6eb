import { expect } from "chai";
import { createAgent, eventually, newSubject, newTenant, waitForStatus } from "./support/api.js";
import { automationsPath } from "./support/automations.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

/** The API guide's walk-through, on the system clock: the scheduler's own loop fires, a worker runs the turn. */
describe("automations: live, as the API guide shows them", function () {
  this.timeout(60_000);
  let server: TestServer;
  let api: Client;
  let agent: any;

  before(async () => {
    server = await startServer();
    api = await newTenant(server);
    agent = await createAgent(api, { modelName: "mock/echo" });
  });
  after(async () => server?.close());

  async function agentReply(sessionId: string): Promise<string> {
    await waitForStatus(api, sessionId, "idle");
    return eventually("the agent's reply", async () => {
      const events = (await api.get(`/v1/sessions/${sessionId}/events`)).body.data;
      return events.find((e: any) => e.type === "agent.message")?.payload.content[0].text as string | undefined;
    });
  }

  it("a cron automation triggered by hand runs its prompt in a fresh session, and the run lists it", async () => {
    const subject = newSubject("user");
    const created = await api.post(automationsPath(agent.id, subject), {
      name: "Morning brief",
      prompt: "Brief me on my day.",
      schedule: "0 9 * * *",
      timezone: "Europe/Paris",
    });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ scheduleDisplay: "At 09:00, every day (Europe/Paris)", state: "active" });
    const url = `${automationsPath(agent.id, subject)}/${created.body.id}`;
    const run = await api.post(`${url}/trigger`);
    expect(run.status).to.equal(200);
    expect(await agentReply(run.body.sessionId)).to.include("Brief me on my day.");
    expect((await api.get(`${url}/sessions`)).body.data.map((s: any) => s.id)).to.deep.equal([run.body.sessionId]);
    expect((await api.get(url)).body.nextRunAt).to.equal(created.body.nextRunAt);
  });

  it("the scheduler fires a one-time automation when its time comes", async () => {
    const subject = newSubject("user");
    const at = new Date(Date.now() + 2_000).toISOString();
    const created = await api.post(automationsPath(agent.id, subject), { prompt: "Remind me to stretch.", schedule: at });
    expect(created.status).to.equal(201);
    const url = `${automationsPath(agent.id, subject)}/${created.body.id}`;
    const done = await eventually(
      "the occurrence",
      async () => {
        const a = (await api.get(url)).body;
        return a.state === "completed" ? a : undefined;
      },
      20_000,
    );
    expect(done).to.include({ runCount: 1, completedOccurrences: 1, nextRunAt: null });
    expect(await agentReply(done.lastRun.sessionId)).to.include("Remind me to stretch.");
  });
});
