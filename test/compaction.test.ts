/**
 * Context compaction through the API, with the mock model and a small window (`mock/window-<tokens>`,
 * a token being four characters): automatic past the threshold of a turn's context, and on request
 * between turns or during one.
 */
import { expect } from "chai";
import { COMPACTION_REQUEST, COMPACTION_SYSTEM, SUMMARY_PREFIX } from "../src/worker/domain/compaction.js";
import { useAnthropicService } from "./support/anthropic-service.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";
import { allow, lookup } from "./tools-cases.js";

const compactions = (events: any[]) => events.filter((e) => e.type === "session.compacted");
/** A message of about 250 tokens, told apart by its first words. */
const long = (name: string) => `${name} ${"lorem ipsum ".repeat(83)}`;

describe("context compaction (mock model, small window)", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  const compact = (sessionId: string) => api.post(`/v1/sessions/${sessionId}/compact`, {});

  it("a turn whose context passed 80% of the window first summarizes the earlier turns; later calls start from the summary", async () => {
    const { sessionId } = await createSession(api, { agent: { modelName: "mock/window-1000" } });
    for (const [n, name] of ["alpha", "bravo", "charlie"].entries()) {
      await sendText(api, sessionId, long(name));
      await settle(api, sessionId, n + 1);
    }
    let events = await history(api, sessionId);
    const [event, ...more] = compactions(events);
    expect(more).to.deep.equal([]);
    const third = events.filter((e) => e.type === "session.status_running").at(-1)!.turnId;
    expect(event.turnId).to.equal(third);
    expect(event.payload).to.deep.include({ trigger: "auto", kept_turn: third, messages_summarized: 4, context_max: 1000 });
    expect(event.payload.context_before).to.be.at.least(800);
    expect(event.payload.summary).to.equal(`summary: ${long("alpha").slice(0, 60)} | ${long("bravo").slice(0, 60)}`.trimEnd());
    // It came before the third turn's model call, whose answer is unchanged.
    expect(events.indexOf(event)).to.be.lessThan(events.findIndex((e) => e.type === "agent.message" && e.payload.content[0].text.startsWith("echo: charlie")));

    await sendText(api, sessionId, "/context");
    events = await settle(api, sessionId, 4);
    expect(agentTexts(events).at(-1)).to.equal(`context: 4 messages; first: ${(SUMMARY_PREFIX + event.payload.summary).slice(0, 120)}`);
    // The durable history and the session are as they were: every prompt and answer is still there.
    expect(
      agentTexts(events)
        .slice(0, 3)
        .map((t) => t.slice(0, 12)),
    ).to.deep.equal(["echo: alpha ", "echo: bravo ", "echo: charli"]);
    expect(events.filter((e) => e.type === "user.message")).to.have.length(4);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.id).to.equal(sessionId);
  });

  it("on request between turns: everything so far becomes the summary, and the session's context shrinks to it", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "first words");
    await sendText(api, sessionId, "second words", "when_idle");
    await settle(api, sessionId, 2);
    const before = (await api.get(`/v1/sessions/${sessionId}`)).body.usage;

    const requested = await compact(sessionId);
    expect(requested.status, JSON.stringify(requested.body)).to.equal(202);
    expect(requested.body).to.deep.equal({ object: "session.compaction", sessionId, status: "requested" });
    const [event] = compactions(
      await until(
        () => history(api, sessionId),
        (e) => compactions(e).length > 0,
        15_000,
        "session.compacted",
      ),
    );
    expect(event.turnId).to.equal(null);
    expect(event.payload).to.deep.include({ trigger: "manual", kept_turn: null, messages_summarized: 4, summary: "summary: first words | second words" });
    expect(event.payload.context_before).to.equal(before.context_used);
    const after = await until(
      () => api.get(`/v1/sessions/${sessionId}`),
      (r) => r.body.usage.calls === before.calls + 1,
      15_000,
      "usage with the summary's call",
    );
    expect(after.body.usage.context_used).to.be.lessThan(before.context_used);

    await sendText(api, sessionId, "/context");
    const events = await settle(api, sessionId, 3);
    expect(agentTexts(events).at(-1)).to.equal(
      `context: 2 messages; first: ${SUMMARY_PREFIX}summary: first words | second words`.slice(0, "context: 2 messages; first: ".length + 120),
    );
  });

  it("on request during a turn: done before the turn's next model call, keeping the turn's own messages", async () => {
    const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
    await sendText(api, sessionId, "earlier words");
    await settle(api, sessionId, 1);
    await sendText(api, sessionId, '/tool lookup {"order":"A-1"}');
    const use = await until(
      () => history(api, sessionId),
      (e) => e.some((x) => x.type === "agent.custom_tool_use"),
      15_000,
      "the custom tool call",
    );
    const call = use.find((x) => x.type === "agent.custom_tool_use")!;
    expect((await compact(sessionId)).status).to.equal(202);
    await api.post(`/v1/sessions/${sessionId}/events`, {
      events: [{ type: "user.custom_tool_result", tool_use_id: call.payload.id, content: [{ type: "text", text: "shipped" }] }],
    });
    const events = await settle(api, sessionId, 3);
    const [event] = compactions(events);
    expect(event.payload).to.deep.include({ trigger: "manual", kept_turn: call.turnId, messages_summarized: 2, summary: "summary: earlier words" });
    // The kept turn's call and result were still before the model: it answered from them.
    expect(agentTexts(events).at(-1)).to.equal("tool lookup result: shipped");
  });

  it("a request with nothing to summarize is dropped without an event; unknown, foreign and archived sessions are refused", async () => {
    const { sessionId } = await createSession(api);
    expect((await compact(sessionId)).status).to.equal(202);
    await sendText(api, sessionId, "hello");
    const events = await settle(api, sessionId, 1);
    expect(compactions(events)).to.deep.equal([]);
    expect(agentTexts(events)).to.deep.equal(["echo: hello"]);

    expect((await compact("ses_doesnotexist")).status).to.equal(404);
    const stranger = client(server.url, await server.newKey());
    expect((await stranger.post(`/v1/sessions/${sessionId}/compact`, {})).status).to.equal(404);
    expect((await api.post(`/v1/sessions/${sessionId}/archive`, {})).status).to.equal(200);
    const refused = await compact(sessionId);
    expect(refused.status).to.equal(409);
    expect(refused.body.message).to.match(/archived/);
  });
});

describe("context compaction (anthropic provider)", () => {
  const svc = useAnthropicService({ ANTHROPIC_THINKING_BUDGET_TOKENS: "0" });

  it("the summary is one request without tools, and the next turn's first message is the summary", async () => {
    svc.fake.push({ text: "Hi Ann." }, { text: "Noted: blue." }, { text: "Ann likes blue." }, { text: "Blue, as you said." });
    const { sessionId } = await createSession(svc.api, { agent: { modelName: "anthropic/claude-sonnet-4-6", systemPrompt: "Be kind." } });
    await sendText(svc.api, sessionId, "I am Ann");
    await sendText(svc.api, sessionId, "I like blue", "when_idle");
    await settle(svc.api, sessionId, 2);
    expect((await svc.api.post(`/v1/sessions/${sessionId}/compact`, {})).status).to.equal(202);
    const [event] = compactions(
      await until(
        () => history(svc.api, sessionId),
        (e) => compactions(e).length > 0,
        15_000,
        "session.compacted",
      ),
    );
    expect(event.payload.summary).to.equal("Ann likes blue.");

    const summarizing = svc.fake.requests[2]!.body;
    expect(JSON.stringify(summarizing.system)).to.include(COMPACTION_SYSTEM.slice(0, 40));
    expect(summarizing.tools ?? []).to.deep.equal([]);
    expect(summarizing.messages).to.have.length(1);
    const asked = JSON.stringify(summarizing.messages[0].content);
    for (const line of ["User: I am Ann", "Assistant: Hi Ann.", "User: I like blue", "Assistant: Noted: blue.", COMPACTION_REQUEST])
      expect(asked).to.include(line);

    await sendText(svc.api, sessionId, "what colour?");
    const events = await settle(svc.api, sessionId, 3);
    expect(agentTexts(events).at(-1)).to.equal("Blue, as you said.");
    const next = svc.fake.requests[3]!.body.messages;
    expect(JSON.stringify(next[0].content)).to.include(JSON.stringify(SUMMARY_PREFIX + "Ann likes blue.").slice(1, -1));
    expect(JSON.stringify(next)).not.to.include("I am Ann");
  });
});
