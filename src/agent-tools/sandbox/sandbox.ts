/**
 * Runs a command for a tool in the session's workspace, under limits: a time limit, a cap on the
 * output kept, an environment that holds nothing of the service's own (no keys, no URLs), and resource
 * limits on every process (memory, file size, and the session user's process count: `prlimit`). The
 * command runs in a process group of its own, killed as a whole when the command ends, times out or
 * is aborted: nothing it starts in the background outlives the call.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, chown, mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { removeContainerOf } from "./docker.js";
import { proxyVariables } from "./egress-proxy.js";
import { SANDBOX_PATH } from "./isolation-probe.js";
import { ISOLATED_WORKSPACE, spawnIsolated, type Isolation } from "./isolation.js";
import type { NetworkLease } from "./session-networks.js";
import type { Unisolated } from "./tool-isolation.js";

export const SANDBOX_TIMEOUT_MS = 30_000;
export const SANDBOX_OUTPUT_BYTES = 64 * 1024;
/**
 * Tasks (processes and threads) a session's user may have at once (RLIMIT_NPROC): a fork bomb stops
 * there. The limit counts every process of the uid, so it is set only with a uid of the session's own.
 */
export const SANDBOX_PROCESSES = 128;
/** After the command's own process ended, how long a process that left its group may hold the output open. */
const PIPE_GRACE_MS = 1_000;

/** The unprivileged user a session's tool processes run as. */
export interface SandboxUser {
  uid: number;
  gid: number;
}

/** Limits of each process a tool starts. */
export interface SandboxLimits {
  /** RLIMIT_DATA: the process's heap and private writable mappings (what allocations use). */
  memoryBytes: number;
  /** RLIMIT_FSIZE: the largest file the process may write. */
  fileBytes: number;
}

/** Where and as whom a session's processes run, and under which limits. */
export interface SandboxPlace {
  /** The workspace on this machine. */
  cwd: string;
  user: SandboxUser | null;
  limits: SandboxLimits;
  /** Namespaces (`isolation.ts`) or a container around each process; needs `user`. */
  isolation?: Isolation | null;
  /** Variables beyond the sandbox's own (a deployment's secrets), for the processes that run the agent's commands. */
  env?: Record<string, string>;
  /** In namespaces: the session's network to join (the agent's commands, `session-networks.ts`); else an empty one. */
  network?: string;
}

/** Variables of a tool's processes: the deployment's secrets, as the placement read them when the tool ran; or why not. */
export type ToolEnvironment = { ok: true; env: Record<string, string> } | { ok: false; problem: string };

/** Where a session's tools run, as the worker's placement decided it (`src/worker/placement.ts`). */
export interface ToolPlace {
  /** The workspace on this machine. */
  workspace: string;
  /** The user tool processes and files belong to, when the worker can switch users. */
  user: SandboxUser | null;
  isolation: Isolation | null;
  /** In namespaces: the session's network, which each of the agent's commands holds while it runs. */
  network: (() => Promise<NetworkLease>) | null;
  /** Set when this worker cannot isolate the agent's commands: whether the operator lets them run so, and why. */
  unisolated: Unisolated | null;
  /** Whether every process of `user` is this session's (a deployment's user is shared by all its threads). */
  soleUser: boolean;
  /** Makes the workspace when it is missing. */
  prepare(): Promise<void>;
  /** The variables for processes that run the agent's commands, read now. */
  environment(): Promise<ToolEnvironment>;
}

/** A path in the workspace (on this machine) as the place's processes see it. */
export function seenPath(place: SandboxPlace, path: string): string {
  return place.isolation && place.user ? join(ISOLATED_WORKSPACE, relative(place.cwd, path)) : path;
}

const FIRST_SANDBOX_UID = 100_000;
const SANDBOX_UIDS = 1_000_000_000;

/**
 * A uid of the session's own, when this process may switch users (it runs as root): the session's
 * processes then cannot read the service's /proc entries (its environment, with its keys) nor any other
 * session's workspace. Null otherwise: the worker cannot isolate tools, which then run only where SANDBOX_UNISOLATED allows (docs/decisions/tools-and-sandbox.md).
 */
export function sandboxUser(sessionId: string): SandboxUser | null {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  const id = FIRST_SANDBOX_UID + (createHash("sha256").update(sessionId).digest().readUInt32BE(0) % SANDBOX_UIDS);
  return { uid: id, gid: id };
}

/** The session's workspace under the root; null for a string that is not a session id (never a path). */
export function workspaceOf(root: string, sessionId: string): string | null {
  return /^ses_[0-9a-z]{1,64}$/.test(sessionId) ? join(root, sessionId) : null;
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

/** A session's /tmp when isolated: beside the workspaces, kept across its commands, removed with its workspace. */
export function sessionTmpOf(workspace: string): string {
  return join(dirname(workspace), ".session-tmp", basename(workspace));
}

/** The session's workspace and its /tmp, both its user's alone (mode 0700). */
export async function prepareSessionWorkspace(workspace: string, user: SandboxUser | null): Promise<void> {
  await prepareWorkspace(workspace, user);
  const tmp = sessionTmpOf(workspace);
  await mkdir(tmp, { recursive: true, mode: 0o700 });
  if (!user) return;
  await chmod(dirname(tmp), 0o711);
  await chown(tmp, user.uid, user.gid);
}

/** Removes a session's workspace and its /tmp, and everything in them (nothing when they do not exist). */
export async function removeWorkspace(workspace: string): Promise<void> {
  await rm(workspace, { recursive: true, force: true, maxRetries: 2 });
  await rm(sessionTmpOf(workspace), { recursive: true, force: true, maxRetries: 2 });
}

/**
 * Starts `command` under the limits, in a process group of its own (its pid is the group's id), with
 * stdout and stderr piped and stdin piped only when asked. `prlimit` sets the limits (soft and hard, so
 * they cannot be raised again) and then becomes the command. With `isolation`, that happens inside the
 * local backend's namespaces (`isolation.ts`), or the command starts in a container whose engine sets
 * the same limits (`docker.ts`).
 */
export function spawnLimited(command: string, args: string[], place: SandboxPlace, opts: { stdin?: boolean; background?: boolean } = {}): ChildProcess {
  const { cwd, user, limits } = place;
  const isolation = user ? place.isolation : null;
  const stdin = opts.stdin === true ? "pipe" : "ignore";
  const rlimits = [`--data=${limits.memoryBytes}`, `--fsize=${limits.fileBytes}`, "--core=0", ...(user ? [`--nproc=${SANDBOX_PROCESSES}`] : [])];
  const home = isolation ? ISOLATED_WORKSPACE : cwd;
  const env: Record<string, string> = {
    PATH: SANDBOX_PATH,
    HOME: home,
    LANG: "C.UTF-8",
    TMPDIR: isolation ? "/tmp" : cwd,
    ...(isolation && place.network ? proxyVariables() : {}),
    ...(opts.background ? { [BACKGROUND_MARK]: "1" } : {}),
  };
  // The sandbox's own variables are not the deployment's to change (nor the background mark).
  const extra = Object.fromEntries(Object.entries(place.env ?? {}).filter(([name]) => !(name in env) && name !== BACKGROUND_MARK));
  const container = isolation?.container;
  if (container && user) {
    const place = {
      deploymentId: container.deploymentId,
      workspace: cwd,
      tmp: isolation.tmp,
      user,
      memoryBytes: limits.memoryBytes,
      fileBytes: limits.fileBytes,
      processes: SANDBOX_PROCESSES,
    };
    return container.engine.spawn([command, ...args], place, env, extra, stdin);
  }
  const argv = ["prlimit", ...rlimits, "--", command, ...args];
  if (isolation && user) return spawnIsolated(argv, { workspace: cwd, isolation, user, network: place.network }, env, extra, stdin);
  return spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: { ...extra, ...env },
    stdio: [stdin, "pipe", "pipe"],
    detached: true,
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
}

/**
 * The variable a background process (and all it starts) carries in its environment: every worker of
 * the machine sees from /proc that a session's user runs one, whichever worker started it.
 */
const BACKGROUND_MARK = "AGENT_SESSIONS_BACKGROUND";

/** Whether a process of `user` carries the background mark (a background process of the session runs). */
export async function runsBackground(user: SandboxUser): Promise<boolean> {
  const mark = Buffer.from(`\0${BACKGROUND_MARK}=1\0`);
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if ((await stat(`/proc/${pid}`)).uid !== user.uid) continue;
      if (Buffer.concat([Buffer.from("\0"), await readFile(`/proc/${pid}/environ`)]).includes(mark)) return true;
    } catch {
      /* the process ended while it was looked at */
    }
  }
  return false;
}

/** Kills a process group (a child of `spawnLimited`) whole, and its container; nothing when it is already gone. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  removeContainerOf(child);
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    /* the group is already gone */
  }
}

/**
 * Kills every process of a session's user, those that left their group too (`setsid`): a shell of
 * that user signals all it may signal (`kill -1`), which is exactly the user's own processes.
 */
export function killUser(user: SandboxUser): Promise<void> {
  return new Promise((resolve) => {
    const killer = spawn("/bin/sh", ["-c", "kill -9 -1"], { stdio: "ignore", uid: user.uid, gid: user.gid, env: {} });
    killer.on("error", () => resolve());
    killer.on("close", () => resolve());
  });
}

/**
 * Calls `onEnd` once the child's output is complete: at `close`, or shortly after its own process
 * exited when something that left the group (`setsid`) still holds the pipes open.
 */
export function onFinished(child: ChildProcess, onEnd: (code: number | null, signal: NodeJS.Signals | null) => void): void {
  let ended = false;
  const end = (code: number | null, signal: NodeJS.Signals | null) => {
    if (ended) return;
    ended = true;
    onEnd(code, signal);
  };
  // The command's own process ended: what it left running in its group goes too (which also closes
  // the output pipes a background process would otherwise hold open).
  child.on("exit", (code, signal) => {
    killGroup(child);
    setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      end(code, signal);
    }, PIPE_GRACE_MS).unref();
  });
  child.on("close", end);
}

export interface SandboxResult {
  ok: boolean;
  text: string;
}

export function runInSandbox(
  command: string,
  args: string[],
  place: SandboxPlace,
  signal: AbortSignal,
  timeoutMs = SANDBOX_TIMEOUT_MS,
): Promise<SandboxResult> {
  return new Promise((resolve) => {
    const child = spawnLimited(command, args, place);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const onAbort = () => killGroup(child);
    if (signal.aborted) killGroup(child);
    else signal.addEventListener("abort", onAbort, { once: true });
    let output = "";
    let truncated = false;
    const collect = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      const room = SANDBOX_OUTPUT_BYTES - output.length;
      if (text.length > room) truncated = true;
      output += text.slice(0, Math.max(0, room));
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    child.on("error", (err) => {
      done();
      resolve({ ok: false, text: `could not run the command: ${err.message}` });
    });
    onFinished(child, (code, sig) => {
      done();
      const tail = truncated ? `\n[output truncated at ${SANDBOX_OUTPUT_BYTES} bytes]` : "";
      if (sig) resolve({ ok: false, text: `${output}${tail}\n[stopped by ${sig}${timedOut ? `: over the ${timeoutMs} ms limit` : ""}]` });
      else resolve({ ok: code === 0, text: `${output}${tail}${code === 0 ? "" : `\n[exit code ${code}]`}` });
    });
  });
}
