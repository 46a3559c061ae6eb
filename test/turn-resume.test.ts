import { expect } from "chai";
import { useAnthropicService } from "./support/anthropic-service.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

const lookup = {
  type: "custom_tool",
  name: "lookup",
  description: "Looks up an order",
  input_schema: { type: "object", properties: { order: { type: "string" } } },
  permissionPolicy: { type: "always_allow" },
};

describe("review: the turn engine", () => {
  const svc = useAnthropicService();

  const post = (sessionId: string, ...events: unknown[]) => svc.api.post(`/v1/sessions/${sessionId}/events`, { events });

  it("a turn resumed after several pauses for the human is not mistaken for a crashed one", async () => {
    svc.fake.push(
      { text: "First.", toolUses: [{ id: "toolu_1", name: "lookup", input: { order: "A-1" } }] },
      { text: "Second.", toolUses: [{ id: "toolu_2", name: "lookup", input: { order: "A-2" } }] },
      { text: "Third.", toolUses: [{ id: "toolu_3", name: "lookup", input: { order: "A-3" } }] },
      { text: "All three have shipped." },
    );
    const { sessionId } = await createSession(svc.api, { agent: { modelName: "anthropic/claude-sonnet-4-6", tools: [lookup] } });
    await sendText(svc.api, sessionId, "where are my orders?");
    for (let i = 1; i <= 3; i++) {
      const events = await until(
        () => history(svc.api, sessionId),
        (h) => h.filter((e) => e.type === "agent.custom_tool_use").length >= i && h.filter((e) => e.type === "session.status_idle").length >= i,
        15_000,
        `pause ${i}`,
      );
      const use = events.filter((e) => e.type === "agent.custom_tool_use")[i - 1];
      const res = await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: `shipped ${i}` }] });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
    }
    const events = await until(
      () => history(svc.api, sessionId),
      (h) => h.filter((e) => e.type === "session.status_idle").length >= 4,
      15_000,
      "the turn to end",
    );
    const last = events.filter((e) => e.type === "session.status_idle").at(-1);
    expect(last.payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(agentTexts(events)).to.deep.equal(["First.", "Second.", "Third.", "All three have shipped."]);
  });

  it("an interrupt while waiting ends the turn with the usage it spent, and the session aggregates it", async () => {
    const { sessionId } = await createSession(svc.api);
    await sendText(svc.api, sessionId, "/tool todo {}");
    await until(
      () => history(svc.api, sessionId),
      (h) => h.some((e) => e.type === "session.status_idle"),
      15_000,
      "the pause",
    );
    expect((await post(sessionId, { type: "user.interrupt" })).status).to.equal(202);
    const events = await settle(svc.api, sessionId, 2);
    const idle = events.filter((e) => e.type === "session.status_idle").at(-1);
    expect(idle.payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(idle.usage, "usage on the terminal event").to.be.an("object");
    expect(idle.usage.calls).to.equal(1);
    const session = (await svc.api.get(`/v1/sessions/${sessionId}`)).body;
    expect(session.usage, "aggregate usage on the session").to.be.an("object");
    expect(session.usage.calls).to.equal(1);
  });
});
