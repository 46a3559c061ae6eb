/** terminal through sessions: normal use, bad input, and the limits every command runs under (time, processes, memory, output, file size, environment). */
import { expect } from "chai";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { join } from "node:path";
import { isolationAvailable } from "../src/agent-tools/sandbox/isolation-probe.js";
import { killGroup, runsBackground, spawnLimited } from "../src/agent-tools/sandbox/sandbox.js";
import { createSession, until } from "./support/sessions.js";
import { answer, processesOf, toolCaller } from "./support/tool-calls.js";
import { allow, toolset } from "./tools-cases.js";

describe("terminal", () => {
  const root = `/tmp/agent-sessions-terminal-ws-${process.pid}`;
  let server: TestServer;
  let api: Client;
  const call = toolCaller(() => api);
  const newSession = async () => (await createSession(api, { agent: { tools: [toolset(allow)] } })).sessionId;
  const uidOf = async (sessionId: string) => Number((await call(sessionId, "terminal", { command: "id -u" })).text);

  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: root, SANDBOX_MEMORY_MB: "128", SANDBOX_FILE_SIZE_MB: "1" });
    api = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  it("runs a shell command in the session's workspace and returns its output; a failing one is an error with its exit code", async () => {
    const sessionId = await newSession();
    const seen = isolationAvailable() ? "/workspace" : `${root}/${sessionId}`;
    expect(await call(sessionId, "terminal", { command: "echo hi; pwd" })).to.deep.equal({ ok: true, text: `hi\n${seen}\n` });
    expect(await call(sessionId, "terminal", { command: "echo oops >&2; exit 3" })).to.deep.equal({ ok: false, text: "oops\n\n[exit code 3]" });
  });

  it("bad input is a tool error naming the problem", async () => {
    const sessionId = await newSession();
    const cases: [unknown, string][] = [
      [{}, "invalid input: command: is required"],
      [{ command: "" }, "invalid input: command: must not be empty"],
      [{ command: "true", background: "yes" }, "invalid input: background: must be boolean"],
      [{ command: "true", timeout: 0 }, "invalid input: timeout: must be >= 1"],
      [{ command: "true", timeout: 601 }, "invalid input: timeout: must be <= 600"],
      [{ command: "true", cwd: "/" }, "invalid input: cwd: is not allowed"],
    ];
    for (const [input, text] of cases) expect(await call(sessionId, "terminal", input), JSON.stringify(input).slice(0, 80)).to.deep.equal({ ok: false, text });
  });

  it("every command runs under the process, memory and file size limits, which it cannot raise", async () => {
    const sessionId = await newSession();
    const { text } = await call(sessionId, "terminal", {
      command: "grep -E '^Max (processes|data size|file size|core)' /proc/self/limits | tr -s ' '; prlimit --nproc=100000 true",
    });
    expect(text).to.match(
      /^Max file size 1048576 1048576 bytes \nMax data size 134217728 134217728 bytes \nMax core file size 0 0 bytes \nMax processes 128 128 processes \n/,
    );
    expect(text).to.match(/prlimit: failed to set the NPROC resource limit: Operation not permitted\n\n\[exit code 1\]$/);
  });

  it("a command over its time limit is killed with everything it started", async () => {
    const sessionId = await newSession();
    const uid = await uidOf(sessionId);
    const result = await call(sessionId, "terminal", { command: "sleep 600 & (setsid sleep 600 &); echo started; sleep 600", timeout: 1 });
    expect(result).to.deep.equal({ ok: false, text: "started\n\n[stopped by SIGKILL: over the 1000 ms limit]" });
    expect(processesOf(uid)).to.deep.equal([]);
  });

  it("escape: a fork bomb stops at the session's process limit and nothing of it outlives the call", async () => {
    const sessionId = await newSession();
    const uid = await uidOf(sessionId);
    const bomb = await call(sessionId, "terminal", { command: "bomb() { bomb | bomb & }; bomb; sleep 600", timeout: 3 }, 30_000);
    expect(bomb.ok).to.equal(false);
    expect(bomb.text).to.match(/Cannot fork/);
    expect(bomb.text).to.match(/\[stopped by SIGKILL: over the 3000 ms limit\]$/);
    expect(processesOf(uid)).to.deep.equal([]);
    expect(await call(sessionId, "terminal", { command: "echo still here" })).to.deep.equal({ ok: true, text: "still here\n" });
  });

  it("escape: a command allocating past the memory limit fails, and the worker is unharmed", async () => {
    const sessionId = await newSession();
    const python = await call(sessionId, "terminal", { command: "python3 -c 'bytearray(512 * 2**20)'" });
    expect(python.ok).to.equal(false);
    expect(python.text).to.match(/MemoryError\n\n\[exit code 1\]$/);
    const shell = await call(sessionId, "terminal", { command: "x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo ${#x}" });
    expect(shell.ok).to.equal(false);
    expect(shell.text).to.not.include("300000000");
    expect(await call(sessionId, "terminal", { command: "echo fine" })).to.deep.equal({ ok: true, text: "fine\n" });
  });

  it("escape: runaway output is cut at 64 KiB, and a file cannot grow past the file size limit", async () => {
    const sessionId = await newSession();
    const flood = await call(sessionId, "terminal", { command: "yes", timeout: 1 });
    expect(flood.ok).to.equal(false);
    expect(flood.text).to.match(/^(y\n){32768}\n\[output truncated at 65536 bytes\]\n\[stopped by SIGKILL: over the 1000 ms limit\]$/);
    const big = await call(sessionId, "terminal", { command: "head -c 5000000 /dev/zero > big; echo $?; wc -c < big" });
    expect(big).to.deep.equal({ ok: true, text: "File size limit exceeded\n153\n1048576\n" });
  });

  it("escape: a command's environment holds nothing of the service's, in the foreground or the background", async () => {
    const sessionId = await newSession();
    // Isolated, the variables that send HTTP clients through the sandbox's egress proxy too.
    const proxies = ["HTTPS_PROXY", "HTTP_PROXY", "NODE_USE_ENV_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"];
    const names = `${["HOME", "LANG", "PATH", "PWD", "TMPDIR", ...(isolationAvailable() ? proxies : [])].sort().join("\n")}\n`;
    expect((await call(sessionId, "terminal", { command: "env | cut -d= -f1 | sort" })).text).to.equal(names);
    const { id } = answer(await call(sessionId, "terminal", { command: "env | cut -d= -f1 | sort", background: true }));
    const waited = answer(await call(sessionId, "process", { action: "wait", id }));
    // Only the mark every worker of the machine reads to know a background process of the session runs.
    expect(waited).to.include({ status: "exited", exit_code: 0, output: `AGENT_SESSIONS_BACKGROUND\n${names}` });
    const secrets = await call(sessionId, "terminal", { command: "env; cat /proc/1/environ /proc/$PPID/environ 2>&1" });
    expect(secrets.text).to.not.match(/MONGO_URL|REDIS_URL|VAULT_ENCRYPTION_KEY/);
  });

  it("a background process started by another worker of the machine is seen, and a foreground command here leaves it running", async function () {
    if (process.getuid?.() !== 0) this.skip(); // only a session user of its own is killed whole
    const sessionId = await newSession();
    const uid = await uidOf(sessionId);
    const user = { uid, gid: uid };
    // Another worker's background process: this worker's table does not know it.
    const place = { cwd: join(root, sessionId), user, limits: { memoryBytes: 2 ** 30, fileBytes: 2 ** 30 } };
    const other = spawnLimited("/bin/sh", ["-c", "sleep 60"], place, { background: true });
    try {
      await until(
        () => runsBackground(user),
        (seen) => seen,
        5_000,
        "the mark in /proc",
      );
      await call(sessionId, "terminal", { command: "true" });
      expect(other.exitCode).to.equal(null);
      expect(await runsBackground(user)).to.equal(true);
    } finally {
      killGroup(other);
    }
    await until(
      () => runsBackground(user),
      (seen) => !seen,
      5_000,
      "the mark gone",
    );
  });
});
