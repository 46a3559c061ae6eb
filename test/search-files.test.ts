/** search_files through sessions: contents by regex, names by glob, paging, bad input, and its confinement (traversal, symlinks, binary files). */
import { expect } from "chai";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, sendText, settle } from "./support/sessions.js";
import { outputText } from "./support/tool-calls.js";
import { allow, toolset } from "./tools-cases.js";

describe("search_files", () => {
  let server: TestServer;
  let api: Client;
  let sessionId: string;
  let turns = 0;
  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}` });
    api = client(server.url, await server.newKey());
    ({ sessionId } = await createSession(api, { agent: { tools: [toolset(allow)] } }));
    const files: Record<string, string> = {
      "src/app.py": "import os\ndef refund(order):\n    return order.total\n",
      "src/util.py": "def helper():\n    pass  # refund later\n",
      "docs/notes.md": "Refund policy: 30 days.\n",
      "b.txt": Array.from({ length: 12 }, (_, i) => `line ${i} match`).join("\n"),
    };
    const lines = Object.entries(files).map(([path, content]) => `/tool write_file ${JSON.stringify({ path, content })}`);
    lines.push('/tool terminal {"command":"ln -s /etc etc-link && ln -s /etc/passwd passwd-link && printf \'match\\\\000binary\' > blob.bin"}');
    await sendText(api, sessionId, lines.join("\n"));
    await settle(api, sessionId, ++turns);
  });
  after(async () => server?.close());

  async function search(input: Record<string, unknown>) {
    await sendText(api, sessionId, `/tool search_files ${JSON.stringify(input)}`);
    const events = await settle(api, sessionId, ++turns);
    const result = events.filter((e) => e.type === "agent.tool_result").at(-1).payload;
    return { ok: !result.is_error, text: outputText(result) };
  }

  it("finds lines by extended regex, as path:line:text, sorted; file_glob narrows the files", async () => {
    expect(await search({ pattern: "[Rr]efund" })).to.deep.equal({
      ok: true,
      text: "docs/notes.md:1:Refund policy: 30 days.\nsrc/app.py:2:def refund(order):\nsrc/util.py:2:    pass  # refund later",
    });
    expect((await search({ pattern: "refund", file_glob: "*.py", path: "src" })).text).to.equal(
      "src/app.py:2:def refund(order):\nsrc/util.py:2:    pass  # refund later",
    );
  });

  it("finds files by name glob", async () => {
    expect(await search({ pattern: "*.py", target: "files" })).to.deep.equal({ ok: true, text: "src/app.py\nsrc/util.py" });
    expect((await search({ pattern: "*.nothing", target: "files" })).text).to.equal("No matches.");
  });

  it("pages with limit and offset, saying where the next page starts", async () => {
    const first = await search({ pattern: "match$", file_glob: "b.txt", limit: 5 });
    expect(first.text.split("\n").slice(0, 5)).to.deep.equal([0, 1, 2, 3, 4].map((i) => `b.txt:${i + 1}:line ${i} match`));
    expect(first.text).to.match(/\n\[more results: use offset 5\]$/);
    const last = await search({ pattern: "match$", file_glob: "b.txt", limit: 5, offset: 10 });
    expect(last.text).to.equal("b.txt:11:line 10 match\nb.txt:12:line 11 match");
    expect((await search({ pattern: "match$", file_glob: "b.txt", offset: 50 })).text).to.equal("No more matches.");
  });

  it("bad input is a tool error naming the problem", async () => {
    expect(await search({ pattern: "(unclosed" })).to.deep.equal({ ok: false, text: "invalid pattern: Unmatched ( or \\(" });
    expect((await search({ pattern: "x", limit: 0 })).text).to.equal("invalid input: limit: must be >= 1");
    expect((await search({ pattern: "x", target: "everything" })).text).to.equal("invalid input: target: must be one of: content, files");
    expect((await search({})).text).to.equal("invalid input: pattern: is required");
  });

  it("stays in the workspace: no traversal, no symlink followed, binary files skipped", async () => {
    await sendText(api, sessionId, '/tool terminal {"command":"readlink etc-link passwd-link; grep -c root passwd-link; ls blob.bin"}');
    const setUp = (await settle(api, sessionId, ++turns)).filter((e) => e.type === "agent.tool_result").at(-1).payload.content[0].text;
    expect(setUp, "the links and the binary file are there to be found").to.match(/^\/etc\n\/etc\/passwd\n[1-9]\d*\nblob\.bin/);
    expect(await search({ pattern: "root", path: "../.." })).to.deep.equal({ ok: false, text: "input.path must stay inside the session's workspace" });
    expect((await search({ pattern: "root" })).text, "/etc/passwd through either link").to.equal("No matches.");
    expect((await search({ pattern: "passwd", target: "files" })).text).to.equal("No matches.");
    expect((await search({ pattern: "match", file_glob: "*.bin" })).text).to.equal("No matches.");
  });
});
