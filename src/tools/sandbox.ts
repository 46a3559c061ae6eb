/**
 * Runs a command for a tool in the session's workspace, under limits: a time limit, a cap on the
 * output kept, and an environment that holds nothing of the service's own (no keys, no URLs). The
 * command runs in a process group of its own, killed as a whole when the command ends, times out or
 * is aborted: nothing it starts in the background outlives the call.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, chown, mkdir } from "node:fs/promises";
import { dirname } from "node:path";

export const SANDBOX_TIMEOUT_MS = 30_000;
export const SANDBOX_OUTPUT_BYTES = 64 * 1024;

/** The unprivileged user a session's tool processes run as. */
export interface SandboxUser {
  uid: number;
  gid: number;
}

const FIRST_SANDBOX_UID = 100_000;
const SANDBOX_UIDS = 1_000_000_000;

/**
 * A uid of the session's own, when this process may switch users (it runs as root): the session's
 * processes then cannot read the service's /proc entries (its environment, with its keys) nor any other
 * session's workspace. Null otherwise: tools then run as the service's user (see docs/decisions.md).
 */
export function sandboxUser(sessionId: string): SandboxUser | null {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  const id = FIRST_SANDBOX_UID + (createHash("sha256").update(sessionId).digest().readUInt32BE(0) % SANDBOX_UIDS);
  return { uid: id, gid: id };
}

/**
 * Creates the session's workspace: owned by the session's user with mode 0700, under a root that can
 * be passed through but not listed (0711), so no session finds or reads another's files.
 */
export async function prepareWorkspace(workspace: string, user: SandboxUser | null): Promise<void> {
  await mkdir(workspace, { recursive: true, mode: 0o700 });
  if (!user) return;
  await chmod(dirname(workspace), 0o711);
  await chown(workspace, user.uid, user.gid);
  await chmod(workspace, 0o700);
}

export interface SandboxResult {
  ok: boolean;
  text: string;
}

export function runInSandbox(
  command: string,
  args: string[],
  cwd: string,
  user: SandboxUser | null,
  signal: AbortSignal,
  timeoutMs = SANDBOX_TIMEOUT_MS,
): Promise<SandboxResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: cwd, LANG: "C.UTF-8", TMPDIR: cwd },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        /* the group is already gone */
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => killGroup();
    if (signal.aborted) killGroup();
    else signal.addEventListener("abort", onAbort, { once: true });
    // The command's own process ended: what it left running in its group goes too (which also closes
    // the output pipes a background process would otherwise hold open past the time limit).
    child.on("exit", killGroup);
    let output = "";
    let truncated = false;
    const collect = (chunk: Buffer) => {
      if (output.length >= SANDBOX_OUTPUT_BYTES) {
        truncated = true;
        return;
      }
      output += chunk.toString("utf8").slice(0, SANDBOX_OUTPUT_BYTES - output.length);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    child.on("error", (err) => {
      done();
      resolve({ ok: false, text: `could not run the command: ${err.message}` });
    });
    child.on("close", (code, sig) => {
      done();
      const tail = truncated ? `\n[output truncated at ${SANDBOX_OUTPUT_BYTES} bytes]` : "";
      if (sig) resolve({ ok: false, text: `${output}${tail}\n[stopped by ${sig}${timedOut ? `: over the ${timeoutMs} ms limit` : ""}]` });
      else resolve({ ok: code === 0, text: `${output}${tail}${code === 0 ? "" : `\n[exit code ${code}]`}` });
    });
  });
}
