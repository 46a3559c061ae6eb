/**
 * A worker that cannot make namespaces (here: a service process running as nobody, as on a laptop
 * without root) refuses the agent's commands, and says why; with SANDBOX_UNISOLATED=allow it runs them,
 * and says so in its log and in every such result. Never a silent downgrade.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { env } from "./support/hooks.js";
import { startProcess, type RunAs, type ServiceProcess } from "./support/processes.js";
import { client, otherDeployment, startServer, type TestServer } from "./support/server.js";
import { createSession } from "./support/sessions.js";
import { toolCaller } from "./support/tool-calls.js";
import { allow, toolset } from "./tools-cases.js";

const NOBODY = 65534;
const WHY = "the worker does not run as root, so it can neither make namespaces nor switch users";

describe("sandbox: a worker that cannot isolate its tools", function () {
  this.timeout(60_000);
  const processes: ServiceProcess[] = [];
  let keys: TestServer;
  let scratch: string;
  let runAs: RunAs;

  before(async function () {
    if (process.getuid?.() !== 0) this.skip(); // the test starts the service as another user
    scratch = mkdtempSync(join(tmpdir(), "agent-sessions-unisolated-"));
    chmodSync(scratch, 0o755);
    // This Node may live where nobody can reach (under /root): a copy nobody can run.
    const node = join(scratch, "node");
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
    runAs = { uid: NOBODY, gid: NOBODY, node };
    keys = await startServer({ ROLE: "api" });
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await keys?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** A service process as nobody, with its own Redis namespace (its worker runs its sessions' turns alone), and a tool caller on it. */
  async function unisolated(name: string, extra: Record<string, string> = {}) {
    const workspaces = join(scratch, name);
    mkdirSync(workspaces);
    chmodSync(workspaces, 0o777);
    const proc = await startProcess(
      "all",
      { WORKSPACE_ROOT: workspaces, VAULT_ENCRYPTION_KEY: env.vaultKey, REDIS_KEY_PREFIX: otherDeployment(name), ...extra },
      undefined,
      runAs,
    );
    processes.push(proc);
    const api = client(proc.url, await keys.newKey());
    const sessionId = (await createSession(api, { agent: { tools: [toolset(allow)] } })).sessionId;
    return { proc, sessionId, call: toolCaller(() => api) };
  }

  it("refuses terminal, process and execute_code, saying why and how an operator may allow them; the file tools work", async () => {
    const { proc, sessionId, call } = await unisolated("nb-refuse");
    await proc.waitForLog("the agent's commands (terminal, process, execute_code) are refused");
    expect(proc.output()).to.include(WHY);
    const refusal = `this worker cannot isolate tool processes (${WHY}), so it runs no command; an operator can allow commands without isolation with SANDBOX_UNISOLATED=allow`;
    expect(await call(sessionId, "terminal", { command: "echo hi" })).to.deep.equal({ ok: false, text: refusal });
    expect(await call(sessionId, "process", { action: "list" })).to.deep.equal({ ok: false, text: refusal });
    expect(await call(sessionId, "execute_code", { language: "python", code: "print(1)" })).to.deep.equal({ ok: false, text: refusal });
    expect((await call(sessionId, "write_file", { path: "notes.txt", content: "kept" })).ok).to.equal(true);
    expect(await call(sessionId, "read_file", { path: "notes.txt" })).to.deep.equal({ ok: true, text: "kept" });
  });

  it("with SANDBOX_UNISOLATED=allow runs them, and says so at start and after every result", async () => {
    const { proc, sessionId, call } = await unisolated("nb-allow", { SANDBOX_UNISOLATED: "allow" });
    await proc.waitForLog("tool processes run WITHOUT isolation (SANDBOX_UNISOLATED=allow)");
    const note = `[ran without isolation: ${WHY}; SANDBOX_UNISOLATED=allow]`;
    expect(await call(sessionId, "terminal", { command: "echo hi" })).to.deep.equal({ ok: true, text: `hi\n\n${note}` });
    const listed = await call(sessionId, "process", { action: "list" });
    expect(listed).to.deep.equal({ ok: true, text: `{"processes":[]}\n${note}` });
  });
});
