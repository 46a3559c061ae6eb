/**
 * The local sandbox: each tool process tree, of an ordinary session or of a deployment's thread, starts
 * in new mount, PID, IPC, UTS and network namespaces made by bubblewrap (`bwrap`), where
 *   - the host's filesystem is seen read-only, with the workspace bound at /workspace (the same path for
 *     every session and deployment) and /tmp the session's or deployment's own directory (kept across
 *     its commands, as a container's is); /var/tmp and /dev/shm are fresh and private, /dev minimal;
 *   - the workspace root (every session's and deployment's workspace, the snapshots) is covered by an
 *     empty tmpfs, so not even the names of other workspaces show;
 *   - /proc is the namespace's own: only the sandbox's processes are in it (the service's environment is
 *     not even there to be refused); bwrap is its PID 1, and when the command ends so does the
 *     namespace, with whatever the command left behind, `setsid` or not;
 *   - the network has only its own loopback, and a sysfs of its own: nothing of the host's (its
 *     loopback, where the stores and the service listen; its addresses; metadata; private networks) has
 *     a route, nor even a name. The one way out is a bridge (socat, as the sandbox's user) from
 *     127.0.0.1:EGRESS_PORT to the worker's egress proxy's Unix socket, which admits what the outbound
 *     policy permits (`egress-proxy.ts`);
 *   - a root shell inside mounts the sysfs and starts the bridge, then `setpriv` becomes the sandbox's
 *     uid with no capabilities and no_new_privs (no setuid program regains any), and only then are the
 *     secret variables read (from fd 3: never an argument, which /proc shows every user, and never in the
 *     environment of a process running as root, where LD_PRELOAD and its kind would act on root's
 *     programs), and the command starts under its `prlimit` limits.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, fstatSync, openSync, statSync } from "node:fs";
import type { Writable } from "node:stream";
import type { DockerEngine } from "./docker.js";
import { EGRESS_PORT } from "./egress-proxy.js";

/** Where a session's or deployment's workspace is, as its isolated processes see it. */
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

/** The sandbox's user and way out, and the directories bwrap gives it. */
export interface IsolatedPlace {
  workspace: string;
  isolation: Isolation & { egress: string };
  user: { uid: number; gid: number };
}

/** Becomes the sandbox's user, with no capabilities left and none to regain. */
const DROP = 'setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all --';

/** The last port a bridge may take: ports from EGRESS_PORT on are tried until one is free. */
const LAST_BRIDGE_PORT = EGRESS_PORT + 99;

const MIB = 2 ** 20;

/**
 * Runs as root inside the namespaces: $1 uid, $2 gid, then the user's part and its arguments. Mounts
 * the network namespace's own sysfs, then becomes the sandbox's user for the rest.
 */
const ROOT_SETUP = [
  "set -e",
  // fd 4 is the network namespace nsenter entered: nothing in the sandbox needs it.
  "exec 4<&-",
  'uid=$1 gid=$2; shift 2',
  "mount -t sysfs -o ro,nosuid,nodev,noexec sysfs /sys",
  `exec ${DROP} /bin/sh -c "$@"`,
].join("\n");

/**
 * Runs as the sandbox's user: $1 the egress socket, $2 whether secrets wait on fd 3 (1 or 0), then the
 * command. Starts the bridge on the first port from EGRESS_PORT no socket of this network listens on
 * (a network the session's background processes share may hold other commands' bridges), and starts
 * the command once it listens (found in /proc/net/tcp with the shell's own builtins), so the command's
 * first connection is never refused. A bridge that died could not bind its port (another took it
 * meanwhile): the next free one is tried. The bridge starts before the secrets are read, so they are
 * never in its environment; it ends with the command's PID namespace.
 */
const USER_SETUP = [
  "set -e",
  'egress=$1 secrets=$2; shift 2',
  'listens() { while read -r _ at _ st _; do [ "$st" = 0A ] && [ $((0x${at#*:})) -eq "$1" ] && return 0; done </proc/net/tcp; return 1; }',
  `bridge() { while listens "$port"; do port=$((port + 1)); done; [ "$port" -le ${LAST_BRIDGE_PORT} ] || return 1; socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$egress" </dev/null >/dev/null 2>&1 3<&- & pid=$!; }`,
  `port=${EGRESS_PORT}; bridge || port=${LAST_BRIDGE_PORT + 1}`,
  `n=0; until [ "$port" -le ${LAST_BRIDGE_PORT} ] && listens "$port" && kill -0 "$pid" 2>/dev/null; do n=$((n + 1)); if [ "$port" -le ${LAST_BRIDGE_PORT} ] && ! kill -0 "$pid" 2>/dev/null; then port=$((port + 1)); bridge || port=${LAST_BRIDGE_PORT + 1}; fi; if [ $n -gt 20000 ] || [ "$port" -gt ${LAST_BRIDGE_PORT} ]; then echo "sandbox: the network bridge did not start" >&2; exit 125; fi; done`,
  'proxy=http://127.0.0.1:$port local=localhost,127.0.0.1,::1',
  'export HTTP_PROXY=$proxy HTTPS_PROXY=$proxy http_proxy=$proxy https_proxy=$proxy NO_PROXY=$local no_proxy=$local NODE_USE_ENV_PROXY=1',
  'if [ "$secrets" = 1 ]; then eval "$(cat <&3)"; fi',
  'exec 3<&-',
  'exec "$@"',
].join("\n");

/**
 * The program and arguments that run `argv` in the sandbox: bwrap, with a new network namespace unless
 * `joined` (then nsenter enters that one, open as fd 4, and becomes bwrap).
 */
export function isolatedCommand(place: IsolatedPlace, argv: string[], joined: boolean, secrets: boolean): [string, string[]] {
  const { workspace, isolation, user } = place;
  const bwrap = [
    "--unshare-pid", "--unshare-ipc", "--unshare-uts", ...(joined ? [] : ["--unshare-net"]), "--die-with-parent",
    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
    "--size", String(64 * 1024), "--tmpfs", isolation.hide,
    "--bind", workspace, ISOLATED_WORKSPACE, "--bind", isolation.tmp, "/tmp",
    "--perms", "1777", "--size", String(64 * MIB), "--tmpfs", "/var/tmp",
    "--perms", "1777", "--size", String(64 * MIB), "--tmpfs", "/dev/shm",
    "--hostname", "sandbox", "--chdir", ISOLATED_WORKSPACE,
    "--", "/bin/sh", "-c", ROOT_SETUP, "sandbox", String(user.uid), String(user.gid), USER_SETUP, "sandbox", isolation.egress, secrets ? "1" : "0", ...argv,
  ];
  return joined ? ["nsenter", ["--net=/proc/self/fd/4", "--", "bwrap", ...bwrap]] : ["bwrap", bwrap];
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
 * meanwhile cannot take it away. The child is bwrap (or nsenter, which becomes it), leader of a process
 * group of its own: killing the group kills the namespace's PID 1, and with it everything in the
 * namespace.
 */
export function spawnIsolated(
  argv: string[],
  place: IsolatedPlace & { network?: string | undefined },
  env: Record<string, string>,
  variables: Record<string, string>,
  stdin: "ignore" | "pipe",
): ChildProcess {
  const joined = place.network === undefined ? null : openNetwork(place.network);
  const script = exportScript(variables);
  const [program, args] = isolatedCommand(place, argv, joined !== null, script !== "");
  try {
    const child = spawn(program, args, { cwd: place.workspace, env, stdio: [stdin, "pipe", "pipe", "pipe", ...(joined === null ? [] : [joined])], detached: true });
    const secrets = child.stdio[3] as Writable;
    // The command may end before reading it all (EPIPE): nothing is lost that anyone needed.
    secrets.on("error", () => undefined);
    secrets.end(script);
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
