import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { isolationAvailable } from "../src/agent-tools/sandbox/isolation-probe.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, sendText, settle } from "./support/sessions.js";

const open = { agent: { tools: [{ type: "agent_toolset", defaultConfig: { enabled: true, permissionPolicy: { type: "always_allow" } } }] } };
const tool = (name: string, input: unknown) => `/tool ${name} ${JSON.stringify(input)}`;

describe("security: built-in tools stay in their sandbox", () => {
  const root = `/tmp/agent-sessions-security-ws-${process.pid}`;
  let server: TestServer;
  let api: Client;

  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: root });
    api = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  async function run(...lines: string[]): Promise<{ sessionId: string; text: string }> {
    const { sessionId } = await createSession(api, open);
    await sendText(api, sessionId, lines.join("\n"));
    const [text] = agentTexts(await settle(api, sessionId, 1, 25_000));
    return { sessionId, text: text ?? "" };
  }

  it("read_file cannot leave the workspace through a symlink the agent made", async () => {
    const { text } = await run(tool("terminal", { command: "ln -s / escape" }), tool("read_file", { path: "escape/etc/hostname" }));
    expect(text).to.include("tool read_file result: input.path must stay inside the session's workspace");
  });

  it("write_file cannot write outside the workspace through a symlink the agent made", async () => {
    const outside = `security-outside-${process.pid}-${Date.now()}`;
    const { text } = await run(tool("terminal", { command: "ln -s /tmp escape" }), tool("write_file", { path: `escape/${outside}`, content: "planted" }));
    expect(text).to.include("tool write_file result: input.path must stay inside the session's workspace");
    expect(() => readFileSync(join("/tmp", outside))).to.throw();
  });

  it("escape: a symlink a background process keeps swapping never lets write_file or read_file out", async function () {
    if (process.getuid?.() !== 0) this.skip(); // without root, tools run as the service's own user: no boundary to test
    const outside = `/tmp/security-race-${process.pid}-${Date.now()}`;
    mkdirSync(outside, { mode: 0o755 });
    writeFileSync(join(outside, "secret"), "outside secret");
    const { sessionId } = await createSession(api, open);
    const swap = `mkdir -p d && echo inside > d/secret && while :; do ln -sfn ${outside} x; ln -sfn d x; done`;
    await sendText(api, sessionId, `${tool("terminal", { command: swap, background: true })}`);
    await settle(api, sessionId, 1, 25_000);
    for (let n = 0; n < 15; n++) {
      await sendText(api, sessionId, `${tool("write_file", { path: "x/planted", content: "planted" })}\n${tool("read_file", { path: "x/secret" })}`);
      const [text] = agentTexts(await settle(api, sessionId, n + 2, 25_000)).slice(-1);
      expect(text).to.not.include("outside secret");
    }
    expect(readdirSync(outside)).to.deep.equal(["secret"]);
  });

  it("terminal cannot read the service's environment through /proc of its parent", async () => {
    const { text } = await run(tool("terminal", { command: "tr '\\0' '\\n' < /proc/$PPID/environ" }));
    for (const secret of ["MONGO_URL", "REDIS_URL"]) expect(text).to.not.include(secret);
  });

  it("execute_code cannot read the service's environment through /proc of its parent", async () => {
    const { text } = await run(
      tool("execute_code", {
        language: "javascript",
        code: "console.log('the code ran'); console.log(require('fs').readFileSync('/proc/' + process.ppid + '/environ', 'utf8'))",
      }),
    );
    expect(text).to.include("the code ran");
    for (const secret of ["MONGO_URL", "REDIS_URL"]) expect(text).to.not.include(secret);
  });

  it("terminal cannot read the workspace of another organization's session", async function () {
    if (!isolationAvailable()) this.skip(); // without isolation the terminal is refused (sandbox-unisolated.test.ts)
    const { sessionId: theirs } = await run(tool("write_file", { path: "secret.txt", content: "the other org's secret" }));
    const other = client(server.url, await server.newKey());
    const { sessionId } = await createSession(other, open);
    await sendText(other, sessionId, tool("terminal", { command: `cat ../${theirs}/secret.txt ${root}/${theirs}/secret.txt; ls ${root}` }));
    const [text] = agentTexts(await settle(other, sessionId, 1, 25_000));
    expect(text).to.not.include("the other org's secret");
    // The workspace root is not even there: the session's own workspace is at /workspace, its /tmp its own.
    expect(text).to.include(`cat: ../${theirs}/secret.txt: No such file or directory`);
    expect(text).to.include(`cat: ${root}/${theirs}/secret.txt: No such file or directory`);
    expect(text).to.include(`ls: cannot access '${root}': No such file or directory`);
  });

  // A killed process may linger as a zombie where nothing reaps orphans, so "alive" means a state other than Z.
  it("a process a terminal command starts in the background does not outlive the call", async () => {
    const { sessionId, text } = await run(
      tool("terminal", { command: "sleep 600 >/dev/null 2>&1 & echo $! > bg.pid" }),
      tool("terminal", {
        command: 'sleep 0.5; s=$(cut -d\' \' -f3 /proc/$(cat bg.pid)/stat 2>/dev/null); if [ -n "$s" ] && [ "$s" != Z ]; then echo alive; else echo gone; fi',
      }),
    );
    try {
      expect(text).to.include("gone\n").and.not.include("alive");
    } finally {
      try {
        process.kill(Number(readFileSync(join(root, sessionId, "bg.pid"), "utf8")), "SIGKILL");
      } catch {
        /* already gone */
      }
    }
  });
});
