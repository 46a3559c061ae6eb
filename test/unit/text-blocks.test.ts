/** Text the service writes is cut into blocks of at most 20,000 characters, and read back whole. */
import { expect } from "chai";
import { TEXT_BLOCK_MAX_CHARS, textBlocks, writtenText } from "../../src/sessions/domain/events.js";
import { conversation } from "../../src/worker/domain/transcript-fold.js";
import { ev, restart, text } from "./envelopes.js";

describe("text blocks the service writes", () => {
  it("are one block up to the bound, then as many as the text needs, none empty", () => {
    expect(TEXT_BLOCK_MAX_CHARS).to.equal(20_000);
    expect(textBlocks("")).to.deep.equal([]);
    expect(textBlocks("hi")).to.deep.equal([{ type: "text", text: "hi" }]);
    expect(textBlocks("a".repeat(20_000)).map((b) => b.text.length)).to.deep.equal([20_000]);
    expect(textBlocks("a".repeat(20_001)).map((b) => b.text.length)).to.deep.equal([20_000, 1]);
    expect(textBlocks("a".repeat(45_000)).map((b) => b.text.length)).to.deep.equal([20_000, 20_000, 5_000]);
  });

  it("stop at 100 blocks: a longer text is cut there, saying so", () => {
    const text = "😀".repeat(1_000_001);
    const blocks = textBlocks(text);
    expect(blocks).to.have.length(100);
    expect(blocks.every((b) => b.text.length >= 1 && b.text.length <= 20_000)).to.equal(true);
    const read = writtenText(blocks);
    expect(read.length).to.be.at.most(2_000_000);
    expect(read).to.match(/^(😀)+\n\[cut here: the text has 2000002 characters, more than one event holds\]$/);
    expect(textBlocks("x".repeat(2_000_000))).to.have.length(100);
    expect(writtenText(textBlocks("x".repeat(2_000_000)))).to.equal("x".repeat(2_000_000));
  });

  it("never cut a surrogate pair, and read back to exactly the text written", () => {
    const split = textBlocks(`${"a".repeat(19_999)}😀b`);
    expect(split.map((b) => b.text)).to.deep.equal(["a".repeat(19_999), "😀b"]);
    let seed = 7;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 20; n++) {
      const chars = Array.from({ length: Math.floor(rnd() * 50_000) }, () => (rnd() < 0.3 ? "😀" : rnd() < 0.1 ? "\n" : "x"));
      const written = chars.join("");
      const blocks = textBlocks(written);
      expect(writtenText(blocks)).to.equal(written);
      for (const b of blocks) {
        expect(b.text.length).to.be.within(1, TEXT_BLOCK_MAX_CHARS);
        expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(b.text), "a block starts or ends inside a pair").to.equal(false);
      }
    }
  });

  it("reach the model whole: a long message, a signed reasoning and a tool's output are one text each", () => {
    restart();
    const long = (c: string) => `${c.repeat(20_000)}${c.repeat(3)}`;
    const log = [
      ev("user.message", { content: [...text("first"), ...text("second")] }),
      ev("session.status_running", {}),
      ev("agent.thinking", { content: textBlocks(long("t")), delta: false, signature: "sig" }),
      ev("agent.tool_use", { id: "a", tool: "terminal", input: {}, status: "running" }),
      ev("agent.tool_result", { tool_use_id: "a", tool: "terminal", status: "completed", content: textBlocks(long("o")), is_error: false }),
      ev("agent.message", { content: textBlocks(long("m")), delta: false }),
    ];
    expect(conversation(log)).to.deep.equal([
      { role: "user", content: [{ type: "text", text: "first\nsecond" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: long("t"), signature: "sig" },
          { type: "tool_use", id: "a", name: "terminal", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: long("o"), is_error: false }] },
      { role: "assistant", content: [{ type: "text", text: long("m") }] },
    ]);
  });
});
