/** Compaction in the transcript fold and its plans (pure). */
import { expect } from "chai";
import {
  compactionDue,
  planCompacted,
  planCompactionUnused,
  planCompactRequested,
  summaryMessage,
  summaryRequest,
  COMPACTION_REQUEST,
  type CompactedPayload,
} from "../../src/worker/domain/compaction.js";
import type { Envelope, Usage } from "../../src/sessions/domain/events.js";
import { INITIAL_STATE, type RuntimeState } from "../../src/sessions/domain/session-state.js";
import { compactionCut, conversation, EMPTY_FOLD, fold, revise, transcript } from "../../src/worker/domain/transcript-fold.js";
import { ev, restart, text } from "./envelopes.js";

const compacted = (kept: string | null, summary: string, summarized: number): Envelope =>
  ev(
    "session.compacted",
    { trigger: kept ? "auto" : "manual", summary, kept_turn: kept, messages_summarized: summarized, context_before: 900, context_max: 1000 },
    kept,
  );

function turn(id: string, said: string, answer: string): Envelope[] {
  return [
    ev("user.message", { content: text(said) }, id),
    ev("session.status_running", {}, id),
    ev("agent.message", { content: text(answer), delta: false }, id),
    ev("session.status_idle", {}, id),
  ];
}

describe("compaction (pure)", () => {
  beforeEach(restart);

  it("between turns the summary replaces the whole transcript; the next turn opens after it", () => {
    const log = [...turn("t1", "one", "echo one"), ...turn("t2", "two", "echo two"), compacted(null, "S", 4), ...turn("t3", "three", "echo three")];
    expect(conversation(log)).to.deep.equal([
      summaryMessage("S"),
      { role: "user", content: text("three") },
      { role: "assistant", content: text("echo three") },
    ]);
  });

  it("during a turn the turn's own messages are kept, its open tool call included, and folding in pages agrees", () => {
    const log = [
      ...turn("t1", "one", "echo one"),
      ev("user.message", { content: text("two") }, "t2"),
      ev("session.status_running", {}, "t2"),
      ev("agent.tool_use", { id: "a", tool: "todo", input: {}, status: "running" }, "t2"),
      ev("agent.tool_result", { tool_use_id: "a", tool: "todo", status: "completed", content: text("ok"), is_error: false }, "t2"),
      compacted("t2", "S", 2),
      ev("agent.message", { content: text("done"), delta: false }, "t2"),
    ];
    const expected = [
      summaryMessage("S"),
      { role: "user", content: text("two") },
      { role: "assistant", content: [{ type: "tool_use", id: "a", name: "todo", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "ok", is_error: false }] },
      { role: "assistant", content: text("done") },
    ];
    expect(conversation(log)).to.deep.equal(expected);
    for (let size = 1; size <= log.length; size++) {
      let state = EMPTY_FOLD;
      for (let i = 0; i < log.length; i += size) state = fold(state, log.slice(i, i + size));
      expect(transcript(state), `pages of ${size}`).to.deep.equal(expected);
    }
  });

  it("a long-running call's tool use and what follows are never summarized: its final result still replaces the running one", () => {
    const log = [
      ...turn("t1", "one", "a"),
      ev("user.message", { content: text("order?") }, "t2"),
      ev("session.status_running", {}, "t2"),
      ev("agent.custom_tool_use", { id: "x", tool: "lookup", input: {} }, "t2"),
      ev("session.status_idle", {}, "t2"),
      { ...ev("user.custom_tool_result", { tool_use_id: "x", content: text("job started"), status: "running" }, "t2"), status: "processed" as const },
      ev("session.status_running", {}, "t2"),
      ev("agent.message", { content: text("started"), delta: false }, "t2"),
      ev("session.status_idle", {}, "t2"),
    ];
    const before = fold(EMPTY_FOLD, log);
    // Between turns everything could go, but for the waiting call: its tool use is the fourth message.
    expect(compactionCut(before, false)).to.equal(3);
    const after = fold(before, [compacted(null, "S", 3)]);
    const replaced = { ...log[8]!, payload: { ...log[8]!.payload, content: text("shipped"), status: "completed" } };
    const final = revise(after, [replaced]);
    expect(transcript(final)).to.deep.equal([
      summaryMessage("S"),
      { role: "assistant", content: [{ type: "tool_use", id: "x", name: "lookup", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "shipped", is_error: false }] },
      { role: "assistant", content: text("started") },
    ]);
  });

  it("a second compaction summarizes the first summary with what followed", () => {
    const log = [...turn("t1", "one", "a"), compacted(null, "S1", 2), ...turn("t2", "two", "b"), compacted(null, "S2", 3)];
    expect(conversation(log)).to.deep.equal([summaryMessage("S2")]);
  });

  it("the summary request is the conversation as text: no tool blocks, no reasoning, attachments by name", () => {
    const [req] = summaryRequest([
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          {
            type: "attachment",
            attachment: { type: "document", filename: "a.pdf", mediaType: "application/pdf", source: { dataUrl: "data:application/pdf;base64,AAAA" } } as never,
          },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "secret thought", signature: "sig" },
          { type: "tool_use", id: "u1", name: "todo", input: { items: [] } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "u1", content: "ok", is_error: true }] },
    ]);
    const body = (req!.content[0] as { text: string }).text;
    expect(req!.content).to.have.length(1);
    expect(body).to.include("User: hi").and.include("User: [attachment a.pdf (application/pdf)]");
    expect(body).to.include('Assistant called tool todo (u1) with {"items":[]}').and.include("Tool result (u1) [error]: ok");
    expect(body).not.to.include("secret thought").and.not.include("base64");
    expect(body.endsWith(COMPACTION_REQUEST)).to.equal(true);
  });

  it("plans: due past the threshold; refused for an archived session; dropped when the turn moved on", () => {
    expect(compactionDue(799, 1000, 80)).to.equal(false);
    expect(compactionDue(800, 1000, 80)).to.equal(true);
    expect(compactionDue(5000, 0, 80)).to.equal(false);
    const idle: RuntimeState = { ...INITIAL_STATE, v: 3 };
    expect(planCompactRequested({ ...idle, status: "archived" })).to.deep.include({ ok: false });
    expect(planCompactRequested({ ...idle, compact: true })).to.equal(null);
    const requested = planCompactRequested(idle);
    expect(requested && requested.ok && requested.plan.state).to.deep.equal({ compact: true });
    const payload: CompactedPayload = {
      type: "session.compacted",
      trigger: "manual",
      summary: "S",
      kept_turn: null,
      messages_summarized: 2,
      context_before: 0,
      context_max: 0,
    };
    const running: RuntimeState = { ...idle, status: "running", turn: { id: "t9", events: [], startedAt: "", attempts: 1, calls: [] } };
    expect(planCompacted(running, "ses_1", payload, new Date(0).toISOString(), null)).to.equal(null);
    const plan = planCompacted({ ...idle, compact: true }, "ses_1", payload, new Date(0).toISOString(), null)!;
    expect(plan.state).to.deep.equal({ compact: false });
    expect(plan.drafts.map((d) => d.payload.type)).to.deep.equal(["session.compacted"]);
  });

  it("a summary left unused between turns still counts its spending, with the session's context as it was", () => {
    const usage = (input: number, context: number): Usage => ({
      model: "mock/x",
      input,
      output: 10,
      cache_read: 0,
      cache_write: 0,
      reasoning: 0,
      total: input + 10,
      calls: 1,
      context_used: context,
      context_max: 1000,
      context_percent: context / 10,
      cost_status: "included",
      last_turn_latency_ms: 5,
      latency_ms: 5,
    });
    const state: RuntimeState = { ...INITIAL_STATE, v: 2, compact: true, usage: usage(100, 900) };
    const plan = planCompactionUnused(state, usage(800, 10), true)!;
    expect(plan.state.compact).to.equal(false);
    expect(plan.state.usage).to.deep.include({ input: 900, calls: 2, context_used: 900, context_percent: 90 });
    expect(planCompactionUnused({ ...state, compact: false }, null, true)).to.equal(null);
    expect(planCompactionUnused(state, usage(800, 10), false)!.state).to.not.have.property("compact");
  });
});
