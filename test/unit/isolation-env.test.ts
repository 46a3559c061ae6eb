/** The secret variables' hand-over script of the isolated backend: a shell evaluating it gets each value exactly, and runs nothing of it. */
import { execFileSync } from "node:child_process";
import { expect } from "chai";
import { exportScript } from "../../src/agent-tools/sandbox/isolation.js";

describe("isolation: the variables' export script (pure)", () => {
  it("gives a shell every value byte for byte, whatever quotes, expansions or lines it holds", () => {
    const values: Record<string, string> = {
      PLAIN: "abc",
      QUOTES: `it's "quoted" ''`,
      EXPANSIONS: "$(touch /tmp/never) `id` ${HOME} $1 \\ \\n",
      LINES: "one\ntwo\n\n",
      UNICODE: "é ✓ 🔑",
      _UNDER: " leading and trailing spaces ",
    };
    const script = exportScript(values);
    const printed = execFileSync("/bin/sh", ["-c", `eval "$(cat)"; for n in ${Object.keys(values).join(" ")}; do eval "printf '%s\\\\0' \\"\\$$n\\""; done`], {
      input: script,
      env: {},
    });
    expect(printed.toString("utf8").split("\0").slice(0, -1)).to.deep.equal(Object.values(values));
  });

  it("leaves out a name that is not a variable name", () => {
    expect(exportScript({ "BAD-NAME": "x", "1ST": "y", "A;rm": "z", OK: "v" })).to.equal("export OK='v'\n");
  });
});
