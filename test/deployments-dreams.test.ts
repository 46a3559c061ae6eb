import { expect } from "chai";
import { DREAM_PROMPT, DREAM_TITLE } from "../src/deployments/dreams.js";
import { deploymentsClient, readyDeployment } from "./support/deployments.js";
import { expectValidation } from "./support/expect.js";
import { until, userMessage } from "./support/sessions.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

const IDLE_MS = 1_000;

describe("deployments: thread lists and dreaming", () => {
  let server: TestServer;
  let api: Client;

  before(async () => {
    // Idle long enough that a loaded machine starts the message's turn well within it (a message whose
    // turn has not started yet leaves its thread looking idle since the post).
    server = await startServer({ DEPLOYMENT_DREAM_IDLE_MS: String(IDLE_MS), DEPLOYMENT_SWEEP_INTERVAL_MS: "100" });
    ({ api } = await deploymentsClient(server));
  });
  after(async () => server.close());

  const threadsOf = async (d: any): Promise<any[]> => {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await api.get(`/v1/deployments/${d.deployment_id}/threads?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).to.equal(200);
      all.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    return all;
  };
  const eventsOf = async (d: any, thread: string): Promise<any[]> =>
    (await api.get(`/v1/deployments/${d.deployment_id}/threads/${thread}/events?limit=100`)).body.data;
  const idleTurns = (events: any[]) => events.filter((e) => e.type === "session.status_idle").length;

  it("lists a deployment's threads newest first, by pages", async () => {
    const d = await readyDeployment(api);
    const made = [];
    for (const title of ["one", "two", "three"]) made.push((await api.post(`/v1/deployments/${d.deployment_id}/threads`, { title })).body.thread_id);
    expect((await threadsOf(d)).map((t) => t.thread_id)).to.deep.equal([...made.reverse(), d.thread_id]);
    expectValidation(await api.get(`/v1/deployments/${d.deployment_id}/threads?cursor=abc`), "cursor: must be a next_cursor this list returned");
  });

  it("dreams once after activity and idleness, in a thread of its own, and not again without new activity", async () => {
    const d = await readyDeployment(api);
    const quiet = await readyDeployment(api);
    await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage("remember that I like tea")] });
    await api.post(`/v1/deployments/${quiet.deployment_id}/threads/${quiet.thread_id}/events`, { events: [userMessage("hi")] });
    // Dreaming goes on once the turn's record is written: a sweep reading the record before its projection
    // landed would see the thread idle since its creation (a loaded machine can take that long).
    for (const dep of [d, quiet]) {
      await until(
        () => threadsOf(dep),
        (list) => list.some((t) => t.thread_id === dep.thread_id && t.status === "idle" && t.usage?.calls >= 1),
        15_000,
        "the turn's record",
      );
    }
    expect((await api.patch(`/v1/deployments/${d.deployment_id}`, { features: { dreaming: true } })).status).to.equal(200);
    const dreams = async () => (await threadsOf(d)).filter((t) => t.title === DREAM_TITLE);
    const [dream] = await until(dreams, (list) => list.length === 1, 15_000, "a dream thread");
    expect(dream.metadata).to.deep.equal({ dreaming: true });
    const events = await until(
      () => eventsOf(d, dream.thread_id),
      (e) => idleTurns(e) >= 1,
      15_000,
      "the dream's turn",
    );
    expect(events[0].payload.content[0].text).to.equal(DREAM_PROMPT);
    await new Promise((r) => setTimeout(r, 2 * IDLE_MS));
    expect(await dreams(), "its own activity does not earn another dream").to.have.length(1);
    expect(
      (await threadsOf(quiet)).filter((t) => t.title === DREAM_TITLE),
      "dreaming is off by default",
    ).to.have.length(0);

    await api.post(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { events: [userMessage("and coffee on Mondays")] });
    await until(dreams, (list) => list.length === 2, 15_000, "a second dream after new activity");
  });
});
