/**
 * Every event the service writes, durable or live-only, matches its type's payload schema
 * (`schemas/outbound-events.ts`, joined by `event-payload`): the schemas the client's event union is
 * generated from cannot drift from what the worker and the send path write. One session goes through
 * thinking, an approval (allowed and denied), a custom tool (running, then final: `session.tool_updated`),
 * a question, an error, a delegation to another agent, a compaction and a title.
 */
import { createAgentSessionsClient, type Event } from "@agent-sessions/client";
import { expect } from "chai";
import { SCHEMAS } from "../schemas/index.js";
import { OUTBOUND_EVENT_SCHEMAS } from "../schemas/outbound-events.js";
import { newAjv } from "../src/schema-validation.js";
import { read } from "./support/client-streams.js";
import { agentBody, client, startServer, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";
import { allow, lookup, sessionSteps } from "./tools-cases.js";

/** Kinds the mock turn cannot make without an MCP server; they share the built-in tools' shapes. */
const NEEDS_MCP = ["agent.mcp_tool_use", "agent.mcp_tool_result"];

describe("event payloads: what the service writes matches the schemas", () => {
  let server: TestServer;
  before(async () => (server = await startServer({ WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}` })));
  after(async () => server.close());

  it("every event of a turn with thinking, approvals, custom tools, questions, errors and compaction validates by its type", async function () {
    this.timeout(60_000);
    const key = await server.newKey();
    const api = client(server.url, key);
    const { post, paused, approve } = sessionSteps(() => api);
    const callee = (await api.post("/v1/agents", agentBody())).body.id as string;
    const { sessionId } = await createSession(api, {
      agent: { tools: [{ type: "agent_toolset" }, lookup({ permissionPolicy: allow })], callableAgents: [{ agentId: callee, description: "helper" }] },
    });
    const reading = read(createAgentSessionsClient({ baseUrl: server.url, apiKey: key }).events(sessionId));

    await sendText(api, sessionId, "/think first things first");
    await settle(api, sessionId, 1);
    await sendText(api, sessionId, "/tool todo {}");
    await approve(sessionId, (await paused(sessionId, 1)).blocking[0]!);
    await settle(api, sessionId, 3);
    await sendText(api, sessionId, "/tool todo {}");
    await approve(sessionId, (await paused(sessionId, 2)).blocking[0]!, undefined, "deny");
    await settle(api, sessionId, 5);
    await sendText(api, sessionId, "/tool lookup {}");
    const use = (await paused(sessionId, 3)).events.findLast((e) => e.type === "agent.custom_tool_use");
    const result = (status: string, text: string) => ({ type: "user.custom_tool_result", tool_use_id: use.id, status, content: [{ type: "text", text }] });
    await post(sessionId, result("running", "started"));
    await settle(api, sessionId, 7);
    await post(sessionId, result("completed", "done"));
    await settle(api, sessionId, 8);
    await sendText(api, sessionId, "/clarify Which one? | red | blue");
    await post(sessionId, { type: "user.clarify_result", request_id: (await paused(sessionId, 4)).blocking[0]!, answer: "red" });
    await settle(api, sessionId, 10);
    await sendText(api, sessionId, "/error on purpose");
    await settle(api, sessionId, 11);
    await sendText(api, sessionId, `/tool delegate__${callee} {"message":"hello"}`);
    await approve(sessionId, (await paused(sessionId, 5)).blocking[0]!);
    await settle(api, sessionId, 13);
    expect((await api.post(`/v1/sessions/${sessionId}/compact`, {})).status).to.equal(202);
    const logged = await until(
      () => history(api, sessionId),
      (h) => h.some((e) => e.type === "session.compacted"),
      15_000,
      "the compaction",
    );
    await until(
      async () => reading.durable().length,
      (n) => n >= logged.length,
      15_000,
      "the stream to catch up",
    );

    const validate = newAjv(false, SCHEMAS).getSchema("event")!;
    const all: unknown[] = [...logged, ...reading.events];
    for (const event of all) expect(validate(event), `${JSON.stringify(event)}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    const seen = new Set(all.map((e) => (e as Event).type));
    const expected = OUTBOUND_EVENT_SCHEMAS.map((s) => s.properties.type.const).filter((t) => !NEEDS_MCP.includes(t));
    expect(expected.filter((t) => !seen.has(t))).to.deep.equal([]);
    expect(reading.events.some((e) => e.type === "agent.message" && e.payload.delta)).to.equal(true);
  });

  it("an event whose type has no schema, or whose payload breaks its type's, is refused", () => {
    const validate = newAjv(false, SCHEMAS).getSchema("event")!;
    const envelope = { id: "evt_1", sessionId: "ses_1", sequence: 1, turnId: null, status: "complete", processedAt: null, createdAt: new Date().toISOString() };
    const good = { ...envelope, type: "agent.message", payload: { type: "agent.message", content: [{ type: "text", text: "hi" }], delta: false } };
    expect(validate(good)).to.equal(true);
    expect(validate({ ...good, payload: { ...good.payload, delta: "no" } })).to.equal(false);
    expect(validate({ ...good, payload: { type: "agent.unknown" }, type: "agent.unknown" })).to.equal(false);
    expect(validate({ ...envelope, type: "session.status_idle", payload: { type: "session.status_idle" } })).to.equal(false);
  });
});
