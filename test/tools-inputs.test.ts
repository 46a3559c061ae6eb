/**
 * Every built-in tool's input is checked against the schema the model is shown: a bad input is a tool
 * error naming each failing path, and the turn goes on. Plus read_file's ranges of a long file.
 */
import { expect } from "chai";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, sendText, settle, until } from "./support/sessions.js";
import { toolCaller } from "./support/tool-calls.js";

const open = { agent: { tools: [{ type: "agent_toolset", defaultConfig: { enabled: true, permissionPolicy: { type: "always_allow" } } }] } };

describe("built-in tool inputs and bounded results", () => {
  let server: TestServer;
  let api: Client;
  const call = toolCaller(() => api);
  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: `/tmp/agent-sessions-inputs-ws-${process.pid}` });
    api = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  const cases: [string, unknown, string][] = [
    ["todo", { items: [{ status: "done" }] }, "items[0].content: is required"],
    ["todo", { items: [{ content: "a", status: "finished" }] }, "items[0].status: must be one of: pending, in_progress, done"],
    ["todo", { items: Array.from({ length: 101 }, () => ({ content: "x" })) }, "items: must have at most 100 items"],
    ["todo", { list: [] }, "list: is not allowed"],
    ["memory", { action: "add" }, "content: is required"],
    ["memory", { action: "add", content: "x".repeat(2001) }, "content: must be at most 2000 characters"],
    ["memory", { action: "remove" }, "id: is required"],
    ["memory", { action: "forget", id: "m" }, "id: is not allowed; action: must be one of: add, list, remove"],
    ["session_search", {}, "query: is required"],
    ["session_search", { query: "" }, "query: must not be empty"],
    ["execute_code", { code: "print(1)", language: "ruby" }, "language: must be one of: python, javascript"],
    ["execute_code", { language: "python" }, "code: is required"],
    ["read_file", { path: "a.txt", offset: 0 }, "offset: must be >= 1"],
    ["read_file", { path: "a.txt", limit: 10001 }, "limit: must be <= 10000"],
    ["read_file", { file: "a.txt" }, "path: is required; file: is not allowed"],
    ["write_file", { path: "a.txt" }, "content: is required"],
    ["write_file", { path: "", content: "x" }, "path: must not be empty"],
    ["patch", { path: "a.txt", old_string: "", new_string: "y" }, "old_string: must not be empty"],
  ];

  it("a bad input of each tool is a tool error naming what is wrong, and nothing is done", async () => {
    const { sessionId } = await createSession(api, open);
    for (const [name, input, message] of cases) {
      const result = await call(sessionId, name, input);
      expect(result, `${name} ${JSON.stringify(input).slice(0, 80)}`).to.deep.include({ ok: false });
      expect(result.text, name).to.equal(`invalid input: ${message}`);
    }
    expect(await call(sessionId, "todo", {})).to.deep.equal({ ok: true, text: "The todo list is empty." });
    expect(await call(sessionId, "memory", {})).to.deep.equal({ ok: true, text: "No memories about this subject yet." });
  });

  it("a clarification with a bad input is a tool error, not a question to the user", async () => {
    const { sessionId } = await createSession(api, open);
    await sendText(api, sessionId, `/tool clarify ${JSON.stringify({ question: "", choices: ["a"] })}`);
    const events = await settle(api, sessionId, 1);
    expect(events.filter((e) => e.type === "agent.clarify_request")).to.deep.equal([]);
    const result = events.find((e) => e.type === "agent.tool_result").payload;
    expect(result).to.deep.include({ tool: "clarify", is_error: true });
    expect(result.content[0].text).to.equal("invalid input: question: must not be empty");
    expect(agentTexts(events).at(-1)).to.match(/^answer: invalid input/);
  });

  it("read_file: a short file whole; a long one in ranges of lines with where to read on; binary files and offsets past the end refused", async () => {
    const { sessionId } = await createSession(api, open);
    await call(sessionId, "terminal", { command: "seq -f 'line %g' 1 3000 > long.txt" });
    await call(sessionId, "write_file", { path: "short.txt", content: "one\ntwo\n" });
    expect(await call(sessionId, "read_file", { path: "short.txt" })).to.deep.equal({ ok: true, text: "one\ntwo\n" });

    const first = await call(sessionId, "read_file", { path: "long.txt" });
    expect(first.text.split("\n").slice(0, 2)).to.deep.equal(["line 1", "line 2"]);
    expect(first.text.split("\n").at(-1)).to.equal("[lines 1-2000; more follow: read on with offset 2001]");
    const rest = await call(sessionId, "read_file", { path: "long.txt", offset: 2001 });
    expect(rest.text.split("\n")).to.have.length(1001);
    expect(rest.text.split("\n").at(-1)).to.equal("[lines 2001-3000; the end of the file]");
    const middle = await call(sessionId, "read_file", { path: "long.txt", offset: 10, limit: 2 });
    expect(middle.text).to.equal("line 10\nline 11\n[lines 10-11; more follow: read on with offset 12]");
    expect(await call(sessionId, "read_file", { path: "long.txt", offset: 5000 })).to.deep.equal({
      ok: false,
      text: "the file has 3000 lines; offset 5000 is past its end",
    });

    // A file past the read bound (256 KiB) comes in parts of at most that many bytes.
    await call(sessionId, "terminal", { command: "yes 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde | head -n 8000 > big.txt" });
    const part = await call(sessionId, "read_file", { path: "big.txt", limit: 10000 });
    expect(Buffer.byteLength(part.text)).to.be.at.most(256 * 1024 + 100);
    expect(part.text.split("\n").at(-1)).to.equal("[lines 1-4096; more follow: read on with offset 4097]");

    // One line longer than the whole budget is cut and says so; the next read goes on after it.
    await call(sessionId, "terminal", { command: "head -c 600000 /dev/zero | tr '\\0' a > wide.txt; printf '\\nafter\\n' >> wide.txt" });
    const wide = await call(sessionId, "read_file", { path: "wide.txt" });
    const [cutLine] = wide.text.split("\n");
    expect(cutLine!.endsWith(" [line 1 is longer than 261120 bytes: cut here]")).to.equal(true);
    expect(cutLine!.replace(/ \[.*$/, "")).to.equal("a".repeat(261120));
    expect(wide.text.split("\n").slice(1)).to.deep.equal(["after", "[lines 1-2; the end of the file]"]);

    await call(sessionId, "terminal", { command: "printf 'a\\0b' > bin.dat" });
    expect(await call(sessionId, "read_file", { path: "bin.dat" })).to.deep.equal({ ok: false, text: "that is a binary file; read_file reads text" });
  });

  it("patch refuses what would make the file larger than write_file allows", async () => {
    const { sessionId } = await createSession(api, open);
    await call(sessionId, "terminal", { command: "head -c 1048000 /dev/zero | tr '\\0' a > full.txt; printf 'X' >> full.txt" });
    const grown = await call(sessionId, "patch", { path: "full.txt", old_string: "X", new_string: "y".repeat(1000) });
    expect(grown).to.deep.equal({ ok: false, text: "the patched file would be over 1048576 bytes" });
    await until(
      () => call(sessionId, "terminal", { command: "wc -c < full.txt" }),
      (r) => r.text.trim().startsWith("1048001"),
      5_000,
      "the file unchanged",
    );
  });
});
