import { expect } from "chai";
import { useAnthropicService } from "./support/anthropic-service.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

describe("review: queue, interrupts and the rebuilt transcript", () => {
  const svc = useAnthropicService({ WORKSPACE_ROOT: `/tmp/agent-sessions-review-ws-${process.pid}` });
  const post = (sessionId: string, ...events: unknown[]) => svc.api.post(`/v1/sessions/${sessionId}/events`, { events });

  it("a when_idle prompt queued while waiting runs after an interrupt ends the paused turn", async () => {
    const { sessionId } = await createSession(svc.api);
    await sendText(svc.api, sessionId, "/tool todo {}");
    await until(
      () => history(svc.api, sessionId),
      (h) => h.some((e) => e.type === "session.status_idle"),
      15_000,
      "the pause",
    );
    const queued = await sendText(svc.api, sessionId, "later", "when_idle");
    expect(queued.status).to.equal(202);
    expect(queued.body.data[0].status).to.equal("queued");
    expect((await post(sessionId, { type: "user.interrupt" })).status).to.equal(202);
    const events = await settle(svc.api, sessionId, 3);
    expect(agentTexts(events)).to.deep.equal(["echo: later"]);
    expect(events.filter((e) => e.type === "user.message").map((e) => e.status)).to.deep.equal(["processed", "processed"]);
  });

  it("each model call of a turn is its own assistant message, also when a later call's only tool is denied", async () => {
    svc.fake.push(
      { text: "Step one.", toolUses: [{ id: "toolu_1", name: "todo", input: {} }] },
      { toolUses: [{ id: "toolu_2", name: "no_such_tool", input: { x: 1 } }] },
      { text: "Done." },
    );
    const { sessionId } = await createSession(svc.api, {
      agent: {
        modelName: "anthropic/claude-sonnet-4-6",
        tools: [{ type: "agent_toolset", defaultConfig: { enabled: true, permissionPolicy: { type: "always_allow" } }, configs: [] }],
      },
    });
    await sendText(svc.api, sessionId, "go");
    const events = await settle(svc.api, sessionId, 1);
    expect(agentTexts(events)).to.deep.equal(["Step one.", "Done."]);
    const third = svc.fake.requests[2]!.body.messages as { role: string; content: { type: string; id?: string; tool_use_id?: string }[] }[];
    const shape = third.map((m) => `${m.role}:${m.content.map((b) => b.id ?? b.tool_use_id ?? b.type).join(",")}`);
    expect(shape).to.have.length(5);
    expect(third[1]!.content.filter((b) => b.type === "tool_use")).to.have.length(1);
    expect(third[3]!.role).to.equal("assistant");
  });
});
