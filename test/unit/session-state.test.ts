import { expect } from "chai";
import { planInbound } from "../../src/sessions/domain/inbound-plan.js";
import { INITIAL_STATE, type RuntimeState } from "../../src/sessions/domain/session-state.js";

/** The state machine is pure: these cases pin instants that black-box tests can only hit by chance. */
describe("session state machine (pure)", () => {
  const text = (t: string) => ({ type: "user.message" as const, content: [{ type: "text" as const, text: t }] });
  const now = new Date(0).toISOString();

  it("a when_idle prompt queues behind older queued prompts, even when the session is idle between turns", () => {
    const state: RuntimeState = { ...INITIAL_STATE, v: 7, status: "idle", queue: ["evt_older"] };
    const result = planInbound(state, "ses_1", [text("newer")], "when_idle", now);
    if (!result.ok) throw new Error("refused");
    expect(result.persisted[0]!.status).to.equal("queued");
    expect(result.plan.state.queue).to.deep.equal(["evt_older", result.persisted[0]!.id]);
    expect(result.plan.state.status).to.equal(undefined);
    expect(result.plan.wake).to.equal(true);
  });

  it("an immediate prompt on an idle session starts its turn at once", () => {
    const result = planInbound({ ...INITIAL_STATE, queue: ["evt_older"] }, "ses_1", [text("now")], "immediate", now);
    if (!result.ok) throw new Error("refused");
    expect(result.plan.state.status).to.equal("running");
    expect(result.plan.drafts.map((d) => d.type)).to.deep.equal(["user.message", "session.status_running"]);
  });

  it("an answer to a request of a turn that is not waiting is no_active_turn", () => {
    const result = planInbound(INITIAL_STATE, "ses_1", [{ type: "user.approval_response", approval_id: "evt_x", result: "allow" }], "immediate", now);
    expect(result).to.deep.equal({ ok: false, rejection: { code: "no_active_turn", message: "the session is not waiting for this approval" } });
  });
});
