/**
 * The local sandbox: each tool process tree, of an ordinary session or of a deployment's thread, starts
 * in new mount, PID, IPC, UTS and network namespaces (`unshare`, util-linux), where
 *   - the workspace is bind-mounted at /workspace, the same path for every session and deployment;
 *   - /tmp is the session's or deployment's own directory (kept across its commands, as a container's
 *     is), and /var/tmp and /dev/shm are fresh and private;
 *   - the workspace root (every session's and deployment's workspace, the snapshots) is covered by an
 *     empty tmpfs, so not even the names of other workspaces show;
 *   - /proc is the namespace's own: only the sandbox's processes are in it (the service's environment is
 *     not even there to be refused), and the command is its PID 1, so when it ends the kernel kills
 *     whatever it left behind, `setsid` or not;
 *   - the network has only its own loopback: nothing of the host's (its loopback, where the stores and
 *     the service listen; its addresses; metadata; private networks) has a route. The one way out is a
 *     bridge (socat, as the sandbox's user) from 127.0.0.1:EGRESS_PORT to the worker's egress proxy's
 *     Unix socket, which admits what the outbound policy permits (`egress-proxy.ts`);
 *   - a root shell makes these mounts and the bridge, then `setpriv` becomes the sandbox's uid with no
 *     capabilities and no_new_privs (no setuid program regains any), and only then are the secret
 *     variables read (from fd 3: never an argument, which /proc shows every user, and never in the
 *     environment of a process running as root, where LD_PRELOAD and its kind would act on root's
 *     programs), and the command starts under its `prlimit` limits.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { accessSync, closeSync, constants, fstatSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import type { DockerEngine } from "./docker.js";
import { EGRESS_PORT } from "./egress-proxy.js";

/** Where a deployment's workspace is, as its isolated processes see it. */
export const ISOLATED_WORKSPACE = "/workspace";

/** The host directories an isolated process tree is given or denied, and its way out. */
export interface Isolation {
  /** The session's or deployment's /tmp on the host. */
  tmp: string;
  /** Covered by an empty tmpfs: the workspace root. */
  hide: string;
  /** Namespaces: the worker's egress proxy's Unix socket, the bridge's other end (a container has a network of its engine's). */
  egress: string | null;
  /** The `docker` backend instead of namespaces: containers on this engine, labelled with the deployment. */
  container?: { engine: DockerEngine; deploymentId: string };
}

/** The namespaces of a command; `--net` only when it does not join its session's network (below). */
const UNSHARE = ["--mount", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc", "--propagation", "private"];

/** Becomes the sandbox's user, with no capabilities left and none to regain. */
const DROP = 'setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all --';

/** The last port a bridge may take: ports from EGRESS_PORT on are tried until one is free. */
const LAST_BRIDGE_PORT = EGRESS_PORT + 99;

/**
 * Runs as root in the new namespaces: $1 workspace, $2 tmp, $3 hidden root, $4 uid, $5 gid, $6 the egress
 * socket, then the command. The workspace and tmp are first bound to a staging place (a fresh /dev/shm)
 * so covering the root (which usually holds them both) leaves them reachable, then moved to where they
 * are seen.
 * The bridge starts first, so that its start overlaps the mounts, on the first port from EGRESS_PORT no
 * socket of this network listens on (a network the session's background processes share may hold other
 * commands' bridges); the command starts once it listens (found in /proc/net/tcp with the shell's own
 * builtins), so its first connection is never refused. The bridge is the command's child once the
 * shell becomes the command, and ends with the command's PID namespace.
 */
const SETUP = [
  "set -e",
  // fd 4 is the network namespace nsenter entered: nothing in the sandbox needs it.
  'exec 4<&-; ws=$1 tmp=$2 hide=$3 uid=$4 gid=$5 egress=$6; shift 6',
  "ip link set lo up",
  'listens() { while read -r _ at _ st _; do [ "$st" = 0A ] && [ $((0x${at#*:})) -eq "$1" ] && return 0; done </proc/net/tcp; return 1; }',
  `bridge() { while listens "$port"; do port=$((port + 1)); done; [ "$port" -le ${LAST_BRIDGE_PORT} ] || return 1; ${DROP} socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$egress" </dev/null >/dev/null 2>&1 3<&- & pid=$!; }`,
  `port=${EGRESS_PORT}; bridge || port=${LAST_BRIDGE_PORT + 1}`,
  "mount -t tmpfs -o mode=0755,size=64m,nosuid,nodev tmpfs /dev/shm",
  "mkdir /dev/shm/.w /dev/shm/.t",
  'mount --bind "$ws" /dev/shm/.w',
  'mount --bind "$tmp" /dev/shm/.t',
  'mount -t tmpfs -o mode=0755,size=64k,nosuid,nodev,noexec tmpfs "$hide"',
  `mount --move /dev/shm/.w ${ISOLATED_WORKSPACE}`,
  "mount --move /dev/shm/.t /tmp",
  "rmdir /dev/shm/.w /dev/shm/.t",
  "chmod 1777 /dev/shm",
  "if [ -d /var/tmp ]; then mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev tmpfs /var/tmp; fi",
  "hostname sandbox",
  // A sysfs of the command's network namespace: the host's interfaces are not even named.
  "mount -t sysfs -o ro,nosuid,nodev,noexec sysfs /sys",
  // A bridge that died could not bind its port (another took it meanwhile): the next free one.
  `n=0; until [ "$port" -le ${LAST_BRIDGE_PORT} ] && listens "$port" && kill -0 "$pid" 2>/dev/null; do n=$((n + 1)); if [ "$port" -le ${LAST_BRIDGE_PORT} ] && ! kill -0 "$pid" 2>/dev/null; then port=$((port + 1)); bridge || port=${LAST_BRIDGE_PORT + 1}; fi; if [ $n -gt 20000 ] || [ "$port" -gt ${LAST_BRIDGE_PORT} ]; then echo "sandbox: the network bridge did not start" >&2; exit 125; fi; done`,
  'proxy=http://127.0.0.1:$port local=localhost,127.0.0.1,::1',
  'export HTTP_PROXY=$proxy HTTPS_PROXY=$proxy http_proxy=$proxy https_proxy=$proxy NO_PROXY=$local no_proxy=$local NODE_USE_ENV_PROXY=1',
  // OLDPWD would tell the command where its workspace is on the host.
  `cd ${ISOLATED_WORKSPACE}; unset OLDPWD`,
  `exec ${DROP} /bin/sh -c 'eval "$(cat <&3)"; exec 3<&-; exec "$@"' sandbox "$@"`,
].join("\n");

/** Why a worker's tools run without isolation, and whether the operator lets the agent's commands run so (SANDBOX_UNISOLATED=allow). */
export interface Unisolated {
  problem: string;
  allowed: boolean;
}

/** The tool result of an agent's command refused because it would run without isolation. */
export function unisolatedRefusal(u: Unisolated): string {
  return `this worker cannot isolate tool processes (${u.problem}), so it runs no command; an operator can allow commands without isolation with SANDBOX_UNISOLATED=allow`;
}

/** Said at the end of every result of an agent's command that ran without isolation. */
export function unisolatedNote(u: Unisolated): string {
  return `[ran without isolation: ${u.problem}; SANDBOX_UNISOLATED=allow]`;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `export NAME='value'` lines for the unprivileged shell to evaluate (values single-quoted whole). */
export function exportScript(variables: Record<string, string>): string {
  return Object.entries(variables)
    .filter(([name]) => VARIABLE_NAME.test(name))
    .map(([name, value]) => `export ${name}='${value.replaceAll("'", "'\\''")}'\n`)
    .join("");
}

/**
 * Starts `argv` isolated, as `user`, in `workspace` (a host path), with `env` (the sandbox's own
 * variables) and `variables` (the deployment's secrets, handed over on fd 3). With `network` (a
 * process's network namespace, /proc/<pid>/ns/net), the command joins that one, its session's while a
 * background process of it runs, so a server it started there answers on loopback; else it gets a new
 * one. The namespace is held open (fd 4) from here until `nsenter` has entered it: a process that ends
 * meanwhile cannot take it away. The child is `unshare` (or `nsenter`, which becomes it), leader of a
 * process group of its own: killing the group kills the namespace's PID 1, and with it everything in
 * the namespace.
 */
export function spawnIsolated(
  argv: string[],
  place: { workspace: string; isolation: Isolation & { egress: string }; user: { uid: number; gid: number }; network?: string | undefined },
  env: Record<string, string>,
  variables: Record<string, string>,
  stdin: "ignore" | "pipe",
): ChildProcess {
  const { workspace, isolation, user } = place;
  const joined = place.network === undefined ? null : openNetwork(place.network);
  const unshare = [...UNSHARE, ...(joined === null ? ["--net"] : []), "--", "/bin/sh", "-c", SETUP, "sandbox", workspace, isolation.tmp, isolation.hide, String(user.uid), String(user.gid), isolation.egress, ...argv];
  const [program, args] = joined === null ? ["unshare", unshare] : ["nsenter", ["--net=/proc/self/fd/4", "--", "unshare", ...unshare]];
  try {
    const child = spawn(program, args, { cwd: workspace, env, stdio: [stdin, "pipe", "pipe", "pipe", ...(joined === null ? [] : [joined])], detached: true });
    const script = child.stdio[3] as Writable;
    // The command may end before reading it all (EPIPE): nothing is lost that anyone needed.
    script.on("error", () => undefined);
    script.end(exportScript(variables));
    return child;
  } finally {
    if (joined !== null) closeSync(joined);
  }
}

/** The namespace at `path`, opened; null when its process has ended, or when it is the host's own (never joined). */
function openNetwork(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  const host = statSync("/proc/self/ns/net");
  const seen = fstatSync(fd);
  if (seen.ino === host.ino && seen.dev === host.dev) {
    closeSync(fd);
    return null;
  }
  return fd;
}

/** The programs the sandbox runs, from util-linux, iproute2 and socat, looked for on the sandbox's PATH. */
const PROGRAMS = ["unshare", "nsenter", "setpriv", "prlimit", "ip", "socat"];
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";

let problem: string | null | undefined;

/**
 * Why this machine cannot isolate tool processes, or null when it can (cached): the process must be
 * root, the programs present, and the whole chain work — the namespaces, the mounts, the bridge and the
 * change of user — tried once on a scratch directory. The /workspace mount point is made here when
 * missing. A container without CAP_SYS_ADMIN (Docker's default) cannot.
 */
export function isolationProblem(): string | null {
  problem ??= probe();
  return problem;
}

export function isolationAvailable(): boolean {
  return isolationProblem() === null;
}

function probe(): string | null {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return "the worker does not run as root, so it can neither make namespaces nor switch users";
  const missing = PROGRAMS.filter((name) => !SANDBOX_PATH.split(":").some((dir) => executable(join(dir, name))));
  if (missing.length > 0) return `${missing.join(", ")} not found on ${SANDBOX_PATH} (Debian's util-linux, iproute2 and socat; scripts/sandbox-tools.sh installs them)`;
  const scratch = mkdtempSync(join(tmpdir(), "agent-sessions-isolation-"));
  const empty = openSync("/dev/null", "r");
  try {
    mkdirSync(ISOLATED_WORKSPACE, { recursive: true, mode: 0o755 });
    for (const dir of ["ws", "tmp"]) mkdirSync(join(scratch, dir));
    const check = `[ "$(id -u)" = 65534 ] && [ "$PWD" = ${ISOLATED_WORKSPACE} ] || { echo "the sandbox's user or directory is not as made" >&2; exit 1; }`;
    const argv = [...UNSHARE, "--net", "--", "/bin/sh", "-c", SETUP, "sandbox", join(scratch, "ws"), join(scratch, "tmp"), scratch, "65534", "65534", join(scratch, "egress.sock"), "/bin/sh", "-c", check];
    const run = spawnSync("unshare", argv, { stdio: ["ignore", "ignore", "pipe", empty], encoding: "utf8", timeout: 10_000, env: { PATH: SANDBOX_PATH } });
    if (run.status === 0) return null;
    const said = (run.stderr ?? "").trim().split("\n").pop();
    return `the sandbox could not be made here: ${said || run.error?.message || `unshare ended with ${run.status ?? run.signal}`}`;
  } catch (err) {
    return `the sandbox could not be made here: ${(err as Error).message}`;
  } finally {
    closeSync(empty);
    rmSync(scratch, { recursive: true, force: true });
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
