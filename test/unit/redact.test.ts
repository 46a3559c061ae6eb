/** Secret values in what the agent's commands print, replaced by their variable's name (pure). */
import { expect } from "chai";
import { redactor, REDACTED_MIN } from "../../src/agent-tools/redact.js";

describe("redact (pure)", () => {
  it("replaces every occurrence of each value, the longest first, and leaves short values and other text", () => {
    const redact = redactor({ TOKEN: "abcdef123", PREFIXED: "abcdef123-extended", SHORT: "x".repeat(REDACTED_MIN - 1), LINES: "one\ntwo line" });
    expect(redact("TOKEN=abcdef123 and abcdef123-extended; xxxxx stays; one\ntwo line.")).to.equal(
      "TOKEN=[secret $TOKEN] and [secret $PREFIXED]; xxxxx stays; [secret $LINES].",
    );
  });

  it("is the identity without values to redact", () => {
    const text = "nothing $HERE";
    expect(redactor({})(text)).to.equal(text);
    expect(redactor({ A: "abc" })(text)).to.equal(text);
  });
});
