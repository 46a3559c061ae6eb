import { expect } from "chai";
import type { Envelope } from "../../src/sessions/domain/events.js";
import { conversation, EMPTY_FOLD, fold, held, pendingSteers, revise, transcript, type TranscriptFold } from "../../src/worker/domain/transcript-fold.js";
import { oracleConversation, oraclePendingSteers } from "./conversation-oracle.js";
import { random, SessionSimulation } from "./session-simulation.js";
import { ev, restart, text } from "./envelopes.js";

/** Hand-written logs, one per rule of the transcript. */
function fixtures(): Envelope[][] {
  restart();
  const use = (id: string) => ev("agent.tool_use", { id, tool: "todo", input: {}, status: "running" });
  const result = (id: string, out: string) =>
    ev("agent.tool_result", { tool_use_id: id, tool: "todo", status: "completed", content: text(out), is_error: false });
  const denial = (id: string, call: string) =>
    ev("agent.tool_result", { tool_use_id: id, tool: "t", status: "failed", content: text("denied"), is_error: true, input: {}, model_call_id: call });
  const toolCalls = [
    ev("user.message", { content: text("go") }),
    ev("session.status_running", {}),
    use("a"),
    denial("b", "call_1"),
    result("a", "ok"),
    denial("c", "call_2"),
    ev("agent.message", { content: text("done"), delta: false }),
  ];
  restart();
  const interrupted = [
    ev("user.message", { content: text("go") }),
    ev("session.status_running", {}),
    use("a"),
    ev("session.status_idle", {}),
    ev("user.message", { content: text("again") }, "turn_2"),
    ev("session.status_running", {}, "turn_2"),
  ];
  restart();
  const paused = [
    ev("user.message", { content: text("order?") }),
    ev("session.status_running", {}),
    ev("agent.custom_tool_use", { id: "x", tool: "lookup", input: {} }),
    ev("session.status_idle", {}),
    ev("user.custom_tool_result", { tool_use_id: "x", content: text("job started"), status: "running" }, "turn_1", "processed"),
    ev("session.status_running", {}),
    ev("agent.message", { content: text("started"), delta: false }),
    ev("user.steer", { message: "hurry" }, null, "received"),
    ev("user.custom_tool_result", { tool_use_id: "y", content: text("late"), status: "completed" }, "turn_2"),
    ev("session.status_running", {}, "turn_2"),
  ];
  return [toolCalls, interrupted, paused];
}

/** Folds `log` in pages of `size`. */
function inPages(log: Envelope[], size: number, from: TranscriptFold = EMPTY_FOLD): TranscriptFold {
  let state = from;
  for (let i = 0; i < log.length; i += size) state = fold(state, log.slice(i, i + size));
  return state;
}

describe("the transcript as a fold over the log (pure)", () => {
  it("folding the fixtures in pages of every size gives the full rebuild, which is the rebuild before the fold", () => {
    for (const log of fixtures()) {
      const whole = conversation(log);
      expect(whole).to.deep.equal(oracleConversation(log));
      for (let size = 1; size <= log.length; size++) expect(transcript(inPages(log, size))).to.deep.equal(whole);
    }
  });

  it("events already folded are skipped, so a page read twice changes nothing", () => {
    const [log] = fixtures();
    const once = fold(EMPTY_FOLD, log!);
    expect(fold(once, log!.slice(2))).to.equal(once);
  });

  it("random sessions: the fold equals the earlier full rebuild, folded at once or in random pages", () => {
    for (let s = 1; s <= 200; s++) {
      const rnd = random(s);
      const sim = new SessionSimulation(rnd);
      for (let n = 40 + Math.floor(rnd() * 160); n > 0; n--) sim.step();
      const log = sim.read(0);
      const whole = conversation(log);
      expect(whole, `seed ${s}`).to.deep.equal(oracleConversation(log));
      expect(transcript(inPages(log, 1 + Math.floor(rnd() * 40))), `seed ${s}`).to.deep.equal(whole);
      expect(pendingSteers(fold(EMPTY_FOLD, log)), `seed ${s}`).to.deep.equal(oraclePendingSteers(log));
    }
  });

  it("random sessions read as a worker does: a checkpoint caught up with later pages and its held events revised equals the full rebuild", () => {
    for (let s = 1; s <= 200; s++) {
      const rnd = random(1000 + s);
      const sim = new SessionSimulation(rnd);
      let state = EMPTY_FOLD;
      for (let n = 40 + Math.floor(rnd() * 160); n > 0; n--) {
        sim.step();
        if (rnd() > 0.3) continue;
        // A model call: catch up page by page; the session may change between a page and its revision.
        const size = 1 + Math.floor(rnd() * 8);
        let quiet = true;
        for (;;) {
          const page = sim.read(state.sequence, size);
          if (rnd() < 0.2) {
            sim.step();
            quiet = false;
          }
          state = fold(
            revise(
              state,
              held(state).map((e) => sim.current(e)),
            ),
            page,
          );
          if (page.length < size) break;
        }
        if (!quiet) continue;
        const log = sim.read(0);
        expect(transcript(state), `seed ${1000 + s}, after ${sim.length} events`).to.deep.equal(conversation(log));
        expect(pendingSteers(state), `seed ${1000 + s}`).to.deep.equal(oraclePendingSteers(log));
      }
    }
  });

  it("a long-running result replaced after it was folded is patched where it stands", () => {
    const [, , paused] = fixtures();
    const state = fold(EMPTY_FOLD, paused!.slice(0, 7));
    const final = {
      ...paused![4]!,
      status: "received" as const,
      payload: { type: "user.custom_tool_result", tool_use_id: "x", status: "completed", content: text("job done") },
    };
    const revised = revise(state, [final]);
    const replacedLog = paused!.slice(0, 7).map((e) => (e.id === final.id ? final : e));
    expect(transcript(revised)).to.deep.equal(conversation(replacedLog));
    expect(JSON.stringify(transcript(revised)))
      .to.include("job done")
      .and.not.include("job started");
    expect(held(revised).map((e) => e.id)).to.not.include(final.id);
    expect(revised.bytes).to.be.greaterThan(state.bytes - 100);
  });

  it("a queued prompt that joins a turn after it was folded opens that turn", () => {
    restart();
    const queued = ev("user.message", { content: text("later") }, null, "queued");
    const log = [ev("user.message", { content: text("first") }), ev("session.status_running", {}), queued];
    const state = fold(EMPTY_FOLD, log);
    expect(held(state)).to.deep.equal([queued]);
    const joined = { ...queued, turnId: "turn_2", status: "received" as const };
    const running = ev("session.status_running", {}, "turn_2");
    const next = fold(revise(state, [joined]), [running]);
    expect(transcript(next)).to.deep.equal(conversation([...log.slice(0, 2), joined, running]));
    expect(transcript(next).at(-1)!.content).to.deep.equal([{ type: "text", text: "later" }]);
  });

  it("steers stay pending until a read shows them processed", () => {
    restart();
    const steer = ev("user.steer", { message: "be brief" }, null, "received");
    const state = fold(EMPTY_FOLD, [steer]);
    expect(pendingSteers(state)).to.deep.equal([{ id: steer.id, text: "be brief" }]);
    expect(pendingSteers(revise(state, [{ ...steer, status: "processed" }]))).to.deep.equal([]);
  });
});
