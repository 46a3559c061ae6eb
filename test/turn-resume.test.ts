import { expect } from "chai";
import { FakeAnthropic } from "./support/fake-anthropic.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

const lookup = {
  type: "custom_tool",
  name: "lookup",
  description: "Looks up an order",
  input_schema: { type: "object", properties: { order: { type: "string" } } },
  permissionPolicy: { type: "always_allow" },
};

describe("review: the turn engine", () => {
  let fake: FakeAnthropic;
  let server: TestServer;
  let api: Client;

  before(async () => {
    fake = await FakeAnthropic.start({ apiKey: "sk-ant-test-key" });
    server = await startServer({ ANTHROPIC_API_KEY: "sk-ant-test-key", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_RETRY_BASE_MS: "1" });
    api = client(server.url, await server.newKey());
  });
  beforeEach(() => fake.reset());
  after(async () => {
    await server.close();
    await fake.close();
  });

  const post = (sessionId: string, ...events: unknown[]) => api.post(`/v1/sessions/${sessionId}/events`, { events });

  it("a turn resumed after several pauses for the human is not mistaken for a crashed one", async () => {
    fake.push(
      { text: "First.", toolUses: [{ id: "toolu_1", name: "lookup", input: { order: "A-1" } }] },
      { text: "Second.", toolUses: [{ id: "toolu_2", name: "lookup", input: { order: "A-2" } }] },
      { text: "Third.", toolUses: [{ id: "toolu_3", name: "lookup", input: { order: "A-3" } }] },
      { text: "All three have shipped." },
    );
    const { sessionId } = await createSession(api, { agent: { modelName: "anthropic/claude-sonnet-4-6", tools: [lookup] } });
    await sendText(api, sessionId, "where are my orders?");
    for (let i = 1; i <= 3; i++) {
      const events = await until(
        () => history(api, sessionId),
        (h) => h.filter((e) => e.type === "agent.custom_tool_use").length >= i && h.filter((e) => e.type === "session.status_idle").length >= i,
        15_000,
        `pause ${i}`,
      );
      const use = events.filter((e) => e.type === "agent.custom_tool_use")[i - 1];
      const res = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: `shipped ${i}` }] });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
    }
    const events = await until(
      () => history(api, sessionId),
      (h) => h.filter((e) => e.type === "session.status_idle").length >= 4,
      15_000,
      "the turn to end",
    );
    const last = events.filter((e) => e.type === "session.status_idle").at(-1);
    expect(last.payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(agentTexts(events)).to.deep.equal(["First.", "Second.", "Third.", "All three have shipped."]);
  });

  it("an interrupt while waiting ends the turn with the usage it spent, and the session aggregates it", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/tool todo {}");
    await until(() => history(api, sessionId), (h) => h.some((e) => e.type === "session.status_idle"), 15_000, "the pause");
    expect((await post(sessionId, { type: "user.interrupt" })).status).to.equal(202);
    const events = await settle(api, sessionId, 2);
    const idle = events.filter((e) => e.type === "session.status_idle").at(-1);
    expect(idle.payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(idle.usage, "usage on the terminal event").to.be.an("object");
    expect(idle.usage.calls).to.equal(1);
    const session = (await api.get(`/v1/sessions/${sessionId}`)).body;
    expect(session.usage, "aggregate usage on the session").to.be.an("object");
    expect(session.usage.calls).to.equal(1);
  });
});
