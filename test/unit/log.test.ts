/** The logger (pino behind the project's Logger): secret-bearing fields redacted, the level and request id on each line. */
import { expect } from "chai";
import { createLogger, runWithRequest } from "../../src/log.js";

function logged(fn: (log: ReturnType<typeof createLogger>) => void): { line: Record<string, any>; level: string }[] {
  const out: { line: Record<string, any>; level: string }[] = [];
  fn(createLogger("info", { role: "all" }, (line, level) => out.push({ line: JSON.parse(line) as Record<string, any>, level })));
  return out;
}

describe("log (unit)", () => {
  it("redacts keys, tokens, passwords and authorization headers, at the top and one level down", () => {
    const [entry] = logged((log) =>
      log.warn("with secrets", {
        apiKey: "sk-1",
        token: "t-1",
        headers: { authorization: "Bearer b-1", "x-api-key": "k-1" },
        oauth: { refresh_token: "r-1", client_secret: "c-1" },
        kept: "visible",
      }),
    );
    const text = JSON.stringify(entry!.line);
    for (const secret of ["sk-1", "t-1", "b-1", "k-1", "r-1", "c-1"]) expect(text).not.to.include(secret);
    expect(entry!.line).to.include({ level: "warn", msg: "with secrets", role: "all", kept: "visible" });
    expect(entry!.level).to.equal("warn");
  });

  it("writes nothing below its level, and the request id on lines logged while a request runs", async () => {
    const lines = logged((log) => {
      log.debug("hidden");
      void runWithRequest("req-7", async () => {
        await Promise.resolve();
        log.child({ part: "x" }).info("inside");
      });
    });
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => l.line.msg)).to.deep.equal(["inside"]);
    expect(lines[0]!.line).to.include({ requestId: "req-7", part: "x" });
  });
});
