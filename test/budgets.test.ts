/**
 * Spend budgets per session and per agent and subject: costs come from the usage accounting (through the real Anthropic SDK against
 * the fake Messages API, a priced model: the mock model costs nothing). A turn that reaches the limit ends
 * before its next model call with stop_reason budget_exceeded; sends are refused until the limit is raised.
 * An agent's per-subject limit counts every session of the subject with that agent.
 */
import { expect } from "chai";
import { useAnthropicService } from "./support/anthropic-service.js";
import { client } from "./support/server.js";
import { createSession, sendText, settle } from "./support/sessions.js";

let orgs = 0;
/** About 0.0088 USD at claude-sonnet-4-6's prices. */
const usage = { input_tokens: 1_200, output_tokens: 345 };

describe("budgets", () => {
  const svc = useAnthropicService();
  const agent = { agent: { modelName: "anthropic/claude-sonnet-4-6", systemPrompt: "Be brief." } };
  async function newOrg() {
    const key = await svc.server.newKey(`budgets-${process.pid}-${Date.now()}-${++orgs}`);
    return client(svc.server.url, key);
  }

  it("a turn stops at the session's budget; sends are refused until the limit is raised", async () => {
    const api = await newOrg();
    const { sessionId } = await createSession(api, { ...agent, session: { budget: { limitUsd: 0.005 } } });
    const fresh = await api.get(`/v1/sessions/${sessionId}`);
    expect(fresh.body.budget).to.deep.equal({ limitUsd: 0.005, spentUsd: 0 });

    // The first call costs more than the limit and asks for a tool: the turn ends before its second call.
    svc.fake.push({ text: "", toolUses: [{ id: "toolu_1", name: "no_such_tool", input: {} }], usage });
    const calls = svc.fake.requests.length;
    expect((await sendText(api, sessionId, "hi")).status).to.equal(202);
    const events = await settle(api, sessionId, 1);
    const idle = events.filter((e) => e.type === "session.status_idle").at(-1);
    expect(idle.payload.stop_reason.type).to.equal("budget_exceeded");
    expect(idle.payload.stop_reason.scope).to.equal("session");
    expect(idle.payload.stop_reason.limit_usd).to.equal(0.005);
    expect(idle.payload.stop_reason.spent_usd).to.be.greaterThan(0.005);
    expect(svc.fake.requests.length - calls).to.equal(1);

    const spent = (await api.get(`/v1/sessions/${sessionId}`)).body.budget;
    expect(spent.limitUsd).to.equal(0.005);
    expect(spent.spentUsd).to.equal(idle.payload.stop_reason.spent_usd);

    const refused = await sendText(api, sessionId, "more");
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal("budget_exceeded");

    // Raised: the next turn runs.
    expect((await api.post(`/v1/sessions/${sessionId}`, { budget: { limitUsd: 1 } })).body.budget.limitUsd).to.equal(1);
    svc.fake.push({ text: "Now I can answer.", usage });
    expect((await sendText(api, sessionId, "again")).status).to.equal(202);
    const after = await settle(api, sessionId, 2);
    expect(after.filter((e) => e.type === "session.status_idle").at(-1).payload.stop_reason).to.deep.equal({ type: "end_turn" });

    // Removed (null): no limit at all.
    expect((await api.post(`/v1/sessions/${sessionId}`, { budget: { limitUsd: null } })).body.budget.limitUsd).to.equal(null);
  });

  it("another organization's session is not found; bad limits are refused", async () => {
    const api = await newOrg();
    const other = await newOrg();
    const { sessionId } = await createSession(api, agent);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.budget).to.deep.equal({ limitUsd: null, spentUsd: 0 });
    expect((await other.post(`/v1/sessions/${sessionId}`, { budget: { limitUsd: 5 } })).status).to.equal(404);
    for (const budget of [{ limitUsd: 0 }, { limitUsd: -1 }, { limitUsd: "5" }, { limitUsd: 2_000_000 }, {}, { limitUsd: 1, extra: 1 }]) {
      const res = await api.post(`/v1/sessions/${sessionId}`, { budget });
      expect(res.status, JSON.stringify(budget)).to.equal(400);
    }
    const bad = await api.post("/v1/sessions", { agentId: "x", subjectId: "s", budget: { limitUsd: -3 } });
    expect(bad.status).to.equal(400);
  });

  it("an agent's per-subject budget counts the subject's sessions together; other subjects run on", async () => {
    const api = await newOrg();
    const { agentId, sessionId: first, subjectId } = await createSession(api, agent);
    expect((await api.get(`/v1/agents/${agentId}`)).body.subjectBudget).to.deep.equal({ limitUsd: null });
    const set = await api.put(`/v1/agents/${agentId}/subject-budget`, { limitUsd: 0.012 });
    expect(set.status).to.equal(200);
    expect(set.body.subjectBudget).to.deep.equal({ limitUsd: 0.012 });
    expect(set.body.version.version).to.equal(1);

    // The first session spends under the limit.
    svc.fake.push({ text: "Hello.", usage });
    expect((await sendText(api, first, "hi")).status).to.equal(202);
    const firstTurn = await settle(api, first, 1);
    expect(firstTurn.filter((e) => e.type === "session.status_idle").at(-1).payload.stop_reason).to.deep.equal({ type: "end_turn" });
    const firstSpent = (await api.get(`/v1/sessions/${first}`)).body.budget.spentUsd;
    expect(firstSpent).to.be.greaterThan(0);
    const spend = await api.get(`/v1/agents/${agentId}/users/${encodeURIComponent(subjectId)}/spend`);
    expect(spend.status).to.equal(200);
    expect(spend.body).to.deep.equal({ agentId, subjectId, spentUsd: firstSpent, limitUsd: 0.012 });

    // A second session of the same subject reaches the limit with its first call and stops before its second.
    const second = (await api.post("/v1/sessions", { agentId, subjectId })).body.id as string;
    svc.fake.push({ text: "", toolUses: [{ id: "toolu_1", name: "no_such_tool", input: {} }], usage });
    const calls = svc.fake.requests.length;
    expect((await sendText(api, second, "hi")).status).to.equal(202);
    const idle = (await settle(api, second, 1)).filter((e) => e.type === "session.status_idle").at(-1);
    expect(svc.fake.requests.length - calls).to.equal(1);
    const secondSpent = (await api.get(`/v1/sessions/${second}`)).body.budget.spentUsd;
    const total = Math.round((firstSpent + secondSpent) * 1e6) / 1e6;
    expect(idle.payload.stop_reason).to.deep.equal({ type: "budget_exceeded", scope: "subject", limit_usd: 0.012, spent_usd: total });
    expect((await api.get(`/v1/agents/${agentId}/users/${encodeURIComponent(subjectId)}/spend`)).body.spentUsd).to.equal(total);

    // Both sessions refuse new turns, and so does a new one of that subject; another subject is not limited.
    for (const sessionId of [first, second, (await api.post("/v1/sessions", { agentId, subjectId })).body.id]) {
      const refused = await sendText(api, sessionId, "more");
      expect(refused.status, sessionId).to.equal(409);
      expect(refused.body.error).to.equal("budget_exceeded");
      expect(refused.body.message).to.contain("subject");
    }
    const other = (await api.post("/v1/sessions", { agentId, subjectId: `${subjectId}-other` })).body.id as string;
    svc.fake.push({ text: "Hi there.", usage });
    expect((await sendText(api, other, "hi")).status).to.equal(202);
    await settle(api, other, 1);

    // Raised: the subject's turns run again.
    expect((await api.put(`/v1/agents/${agentId}/subject-budget`, { limitUsd: null })).body.subjectBudget).to.deep.equal({ limitUsd: null });
    svc.fake.push({ text: "Back.", usage });
    expect((await sendText(api, second, "again")).status).to.equal(202);
    const after = await settle(api, second, 2);
    expect(after.filter((e) => e.type === "session.status_idle").at(-1).payload.stop_reason).to.deep.equal({ type: "end_turn" });
  });

  it("per-subject budgets: bad limits are refused, another organization's agent is not found", async () => {
    const api = await newOrg();
    const other = await newOrg();
    const { agentId, subjectId } = await createSession(api, agent);
    for (const body of [{ limitUsd: 0 }, { limitUsd: -1 }, { limitUsd: "5" }, { limitUsd: 2_000_000 }, {}, { limitUsd: 1, extra: 1 }]) {
      expect((await api.put(`/v1/agents/${agentId}/subject-budget`, body)).status, JSON.stringify(body)).to.equal(400);
    }
    expect((await other.put(`/v1/agents/${agentId}/subject-budget`, { limitUsd: 5 })).status).to.equal(404);
    expect((await other.get(`/v1/agents/${agentId}/users/${encodeURIComponent(subjectId)}/spend`)).status).to.equal(404);
    expect((await api.get(`/v1/agents/${agentId}/users/${encodeURIComponent(subjectId)}/spend`)).body).to.deep.equal({
      agentId,
      subjectId,
      spentUsd: 0,
      limitUsd: null,
    });
  });
});
