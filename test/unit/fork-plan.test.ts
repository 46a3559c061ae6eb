import { expect } from "chai";
import { ForkPlanner } from "../../src/sessions/domain/fork-plan.js";
import type { Usage } from "../../src/sessions/domain/events.js";
import { ev, restart, text } from "./envelopes.js";

const usage = (contextUsed: number): Usage => ({
  model: "mock/echo",
  input: 7,
  output: 3,
  cache_read: 0,
  cache_write: 0,
  reasoning: 0,
  total: 10,
  calls: 1,
  context_used: contextUsed,
  context_max: 1000,
  context_percent: contextUsed / 10,
  cost_status: "included",
  last_turn_latency_ms: 5,
  latency_ms: 5,
  cost_usd: 0.5,
});

const idle = (turnId: string, stop: Record<string, unknown> = { type: "end_turn" }, spent?: Usage) => {
  const e = ev("session.status_idle", { stop_reason: stop }, turnId);
  return spent ? { ...e, usage: spent } : e;
};

describe("a fork's copy plan", () => {
  beforeEach(restart);

  it("renames ids and every reference with one map, keeps sequences, order and the rest of each event", () => {
    const log = [
      ev("user.message", { content: text("hi") }, "turn_a", "processed"),
      ev("session.status_running", {}, "turn_a"),
      ev("agent.approval_request", { tool_use_id: "evt_call", tool: "lookup", tool_type: "custom", input: {} }, "turn_a"),
      idle("turn_a", { type: "requires_action", event_ids: ["evt_3", "evt_of_a_child_thread"] }),
      ev("user.approval_response", { approval_id: "evt_3", result: "deny" }, null, "processed"),
      ev("agent.tool_result", { tool_use_id: "evt_call", tool: "lookup", status: "failed", content: text("denied"), is_error: true }, "turn_a"),
      idle("turn_a", { type: "end_turn" }, usage(120)),
      ev("session.compacted", { trigger: "manual", summary: "s", kept_turn: "turn_a", messages_summarized: 1, context_before: 1, context_max: 2 }, null),
    ];
    const planner = new ForkPlanner("ses_new");
    const copied = [...planner.page(log.slice(0, 3)), ...planner.page(log.slice(3))].map((e) => ({ ...e, env: JSON.parse(e.env) }));
    expect(copied.map((e) => [e.sequence, e.type])).to.deep.equal(log.map((e) => [e.sequence, e.type]));
    const [, , request, paused, response, result, , compacted] = copied.map((e) => e.env);
    expect(request.id).to.match(/^evt_/).and.not.equal("evt_3");
    expect(paused.payload.stop_reason.event_ids).to.deep.equal([request.id, "evt_of_a_child_thread"]);
    expect(response.payload.approval_id).to.equal(request.id);
    expect(result.payload.tool_use_id).to.equal(request.payload.tool_use_id).and.match(/^evt_/).and.not.equal("evt_call");
    expect(copied[0]!.turn)
      .to.equal(copied[0]!.env.turnId)
      .and.match(/^turn_/)
      .and.not.equal("turn_a");
    expect(compacted.payload.kept_turn).to.equal(copied[0]!.turn);
    expect(new Set(copied.map((e) => e.env.id)).size).to.equal(log.length);
    for (const e of copied) expect(e.env.sessionId).to.equal("ses_new");
    expect(Object.keys(copied[0]!.env)).to.deep.equal(Object.keys(log[0]!));
    expect(copied[6]!.env.usage).to.deep.equal(usage(120));
    expect(planner.count).to.equal(log.length);
    expect(planner.cutProblem()).to.equal(null);
    expect(planner.startingUsage()).to.deep.include({ total: 0, calls: 0, cost_usd: 0, context_used: 120, context_max: 1000, context_percent: 12 });
  });

  it("tells a cut inside a turn, or with a message unanswered, from an idle point", () => {
    const cut = (...log: ReturnType<typeof ev>[]) => {
      const planner = new ForkPlanner("ses_new");
      planner.page(log);
      return planner.cutProblem();
    };
    expect(cut()).to.equal(null);
    restart();
    expect(cut(ev("user.message", { content: text("a") }, "turn_a"))).to.contain("not been answered");
    restart();
    expect(cut(ev("user.message", { content: text("a") }, "turn_a"), ev("session.status_running", {}, "turn_a"))).to.contain("turn is open");
    restart();
    const paused = [
      ev("user.message", { content: text("a") }, "turn_a"),
      ev("session.status_running", {}, "turn_a"),
      idle("turn_a", { type: "requires_action", event_ids: [] }),
    ];
    expect(cut(...paused)).to.contain("turn is open");
    restart();
    // A prompt queued while a turn ran, the turn over: the prompt's own turn has not ended.
    const queued = [
      ev("user.message", { content: text("a") }, "turn_a"),
      ev("session.status_running", {}, "turn_a"),
      ev("user.message", { content: text("b") }, "turn_b", "processed"),
      idle("turn_a"),
    ];
    expect(cut(...queued)).to.contain("not been answered");
    restart();
    expect(cut(...queued, ev("session.status_running", {}, "turn_b"), idle("turn_b", { type: "error", message: "x" }))).to.equal(null);
  });

  it("starts a fork whose cut ended no turn with no usage", () => {
    const planner = new ForkPlanner("ses_new");
    planner.page([]);
    expect(planner.startingUsage()).to.equal(null);
  });
});
