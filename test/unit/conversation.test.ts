import { expect } from "chai";
import { conversation } from "../../src/worker/domain/transcript-fold.js";
import { ev, text } from "./envelopes.js";

const prompt = (t: string) => ev("user.message", { content: text(t) });
const use = (id: string, tool: string) => ev("agent.tool_use", { id, tool, input: {}, status: "running" });
const result = (id: string, out: string) => ev("agent.tool_result", { tool_use_id: id, tool: "t", status: "completed", content: text(out), is_error: false });
const denial = (id: string, call: string) =>
  ev("agent.tool_result", { tool_use_id: id, tool: "t", status: "failed", content: text("denied"), is_error: true, input: {}, model_call_id: call });

/** The transcript rebuilt from the log keeps each model call its own assistant message. */
describe("conversation rebuilt from the log (pure)", () => {
  it("a model call with a tool use and a policy denial is one assistant message with both results", () => {
    const log = [prompt("go"), ev("session.status_running", {}), use("a", "todo"), denial("b", "call_1"), result("a", "ok")];
    const messages = conversation(log);
    expect(messages.map((m) => m.role)).to.deep.equal(["user", "assistant", "user"]);
    expect(messages[1]!.content.map((b) => (b.type === "tool_use" ? b.id : b.type))).to.deep.equal(["a", "b"]);
    expect(messages[2]!.content.map((b) => (b.type === "tool_result" ? b.tool_use_id : b.type)).sort()).to.deep.equal(["a", "b"]);
  });

  it("consecutive model calls made only of denials stay apart; several denials of one call stay together", () => {
    const log = [prompt("go"), ev("session.status_running", {}), denial("b", "call_1"), denial("c", "call_1"), denial("d", "call_2")];
    const messages = conversation(log);
    expect(messages.map((m) => m.role)).to.deep.equal(["user", "assistant", "user", "assistant", "user"]);
    expect(messages[1]!.content).to.have.length(2);
    expect(messages[3]!.content).to.have.length(1);
  });

  it("a tool use left without a result gets one, so the model API accepts the transcript", () => {
    const log = [
      prompt("go"),
      ev("session.status_running", {}),
      use("a", "terminal"),
      ev("session.status_idle", { stop_reason: { type: "end_turn" } }),
      prompt("again"),
    ];
    log[4]!.turnId = "turn_2";
    const messages = conversation([...log.slice(0, 4), log[4]!, ev("session.status_running", {}, "turn_2")]);
    expect(messages.map((m) => m.role)).to.deep.equal(["user", "assistant", "user", "user"]);
    const closed = messages[2]!.content[0]!;
    expect(closed.type === "tool_result" && closed.is_error).to.equal(true);
  });
});
