import { expect } from "chai";
import { INITIAL_STATE, waitsOnThreadsOnly, type RuntimeState, type ToolCall } from "../../src/sessions/domain/session-state.js";
import { delegationRefusal, planThreadOpened, planThreadSeen, planThreadStirred, withThreadUsage } from "../../src/worker/domain/threads.js";
import { hasWork } from "../../src/worker/session-actor.js";
import type { Usage } from "../../src/sessions/domain/events.js";

/** Delegation's plans are pure: these cases pin the instants a black-box test only meets by chance. */
describe("delegation's thread plans (pure)", () => {
  const ctx = { sessionId: "ses_parent", turnId: "turn_1", now: new Date(0).toISOString() };
  const call: ToolCall = { id: "evt_call", name: "delegate__agt_b", input: { message: "go" }, kind: "builtin", state: "executing" };
  const running = (calls: ToolCall[], extra: Partial<RuntimeState> = {}): RuntimeState => ({
    ...INITIAL_STATE,
    v: 3,
    status: "running",
    turn: { id: "turn_1", events: [], startedAt: ctx.now, attempts: 2, calls },
    ...extra,
  });
  const opened = () => {
    const state = running([call]);
    const plan = planThreadOpened(state, ctx, call, "ses_child", "go");
    return { ...state, ...plan.state } as RuntimeState;
  };

  it("opening a thread records the message sent and leaves the call stirred, so the parent looks at once", () => {
    const plan = planThreadOpened(running([call]), ctx, call, "ses_child", "go");
    expect(plan.drafts.map((d) => d.type)).to.deep.equal(["agent.thread_message_sent"]);
    expect(plan.state.turn!.calls[0]).to.deep.include({ state: "thread", thread: { id: "ses_child", asks: [], stirs: 1, seen: 0 } });
    expect(waitsOnThreadsOnly(plan.state.turn!)).to.equal(false);
  });

  it("a stir that comes while the parent reads the child is never lost: the stale reading changes nothing", () => {
    const state = opened();
    const stirredAgain = { ...state, ...planThreadStirred(state, "ses_child")!.state } as RuntimeState;
    expect(planThreadSeen(stirredAgain, ctx, "evt_call", 1, { kind: "working" })).to.equal(null);
    const seen = planThreadSeen(stirredAgain, ctx, "evt_call", 2, { kind: "working" })!;
    const after = { ...stirredAgain, ...seen.state } as RuntimeState;
    expect(after.turn!.attempts).to.equal(0);
    expect(waitsOnThreadsOnly(after.turn!)).to.equal(true);
    expect(hasWork(after)).to.equal(false);
    expect(hasWork({ ...after, interrupt: "turn_1" })).to.equal(true);
  });

  it("a stir for a thread no call waits on changes nothing", () => {
    expect(planThreadStirred(opened(), "ses_other")).to.equal(null);
    expect(planThreadStirred(INITIAL_STATE, "ses_child")).to.equal(null);
  });

  it("a parent paused on its child's question resumes once the child runs, and names a new question with a new pause", () => {
    const state = opened();
    const asking = {
      ...state,
      ...planThreadSeen(state, ctx, "evt_call", 1, { kind: "asks", ids: ["evt_q1"] })!.state,
      status: "waiting_on_human",
    } as RuntimeState;
    const stirred = { ...asking, ...planThreadStirred(asking, "ses_child")!.state } as RuntimeState;
    expect(hasWork(stirred)).to.equal(true);
    const next = planThreadSeen(stirred, ctx, "evt_call", 2, { kind: "asks", ids: ["evt_q2"] })!;
    expect(next.drafts.map((d) => d.payload)).to.deep.equal([{ type: "session.status_idle", stop_reason: { type: "requires_action", event_ids: ["evt_q2"] } }]);
    const resumed = planThreadSeen(stirred, ctx, "evt_call", 2, { kind: "working" })!;
    expect(resumed.state.status).to.equal("running");
    expect(resumed.drafts.map((d) => d.type)).to.deep.equal(["session.status_running"]);
    expect(resumed.wake).to.equal(true);
  });

  it("an answer settles the call with the thread's message and the tool result, and adds the child's usage to the turn", () => {
    const usage = { input: 10, output: 5, cache_read: 0, cache_write: 0, reasoning: 0, calls: 1, cost_usd: 0.25 } as Usage;
    const plan = planThreadSeen(opened(), ctx, "evt_call", 1, { kind: "answered", ok: true, text: "done", usage })!;
    expect(plan.drafts.map((d) => d.type)).to.deep.equal(["agent.thread_message_received", "agent.tool_result"]);
    expect(plan.state.turn!.calls[0]!.state).to.equal("done");
    expect(plan.state.turn!.spent!.threads).to.deep.equal({
      tokens: { input: 10, output: 5, cache_read: 0, cache_write: 0, reasoning: 0 },
      calls: 1,
      costUsd: 0.25,
    });
    expect(withThreadUsage(plan.state.turn!.spent, usage).threads!.costUsd).to.equal(0.5);
  });

  it("delegation is refused past the depth and open-thread bounds", () => {
    const turn = running([]).turn!;
    expect(delegationRefusal(2, turn)).to.equal(null);
    expect(delegationRefusal(3, turn)).to.match(/at most 3 deep/);
    const four = Array.from({ length: 4 }, (_, i) => ({
      ...call,
      id: `evt_${i}`,
      state: "thread" as const,
      thread: { id: `ses_${i}`, asks: [], stirs: 1, seen: 1 },
    }));
    expect(delegationRefusal(0, { ...turn, calls: four })).to.match(/at most 4 threads open at once/);
  });
});
