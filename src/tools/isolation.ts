/**
 * The local sandbox backend's isolation, for a deployment's threads (`sandbox.enabled`) on a machine
 * without a Docker engine: each tool process tree starts in new mount, PID, IPC and UTS namespaces
 * (`unshare`, util-linux), where
 *   - the deployment's workspace is bind-mounted at /workspace, the same path in every deployment;
 *   - /tmp is the deployment's own directory (kept across its commands, as a container's is), and
 *     /var/tmp and /dev/shm are fresh and private;
 *   - the workspace root (every session's and deployment's workspace, the snapshots) is covered by an
 *     empty tmpfs, so not even the names of other workspaces show;
 *   - /proc is the namespace's own: only the sandbox's processes are in it (the service's environment is
 *     not even there to be refused), and the command is its PID 1, so when it ends the kernel kills
 *     whatever it left behind, `setsid` or not;
 *   - a root shell makes these mounts, then `setpriv` becomes the deployment's uid with no capabilities
 *     and no_new_privs (no setuid program regains any), and only then are the secret variables read
 *     (from fd 3: never an argument, which /proc shows every user, and never in the environment of a
 *     process running as root, where LD_PRELOAD and its kind would act on root's programs), and the
 *     command starts under its `prlimit` limits.
 * The network is the host's: a deployment's tools are expected to reach it (docs/decisions.md).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import type { DockerEngine } from "./docker.js";

/** Where a deployment's workspace is, as its isolated processes see it. */
export const ISOLATED_WORKSPACE = "/workspace";

/** The host directories an isolated process tree is given or denied. */
export interface Isolation {
  /** The deployment's /tmp on the host. */
  tmp: string;
  /** Covered by an empty tmpfs: the workspace root. */
  hide: string;
  /** The `docker` backend instead of namespaces: containers on this engine, labelled with the deployment. */
  container?: { engine: DockerEngine; deploymentId: string };
}

const UNSHARE = ["--mount", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc", "--propagation", "private"];

/**
 * Runs as root in the new namespaces: $1 workspace, $2 tmp, $3 hidden root, $4 uid, $5 gid, then the
 * command. The workspace and tmp are first bound to a staging place (a fresh /dev/shm) so covering the
 * root (which usually holds them both) leaves them reachable, then moved to where they are seen.
 */
const SETUP = [
  "set -e",
  'ws=$1 tmp=$2 hide=$3 uid=$4 gid=$5; shift 5',
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
  `cd ${ISOLATED_WORKSPACE}`,
  'exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- /bin/sh -c \'eval "$(cat <&3)"; exec 3<&-; exec "$@"\' sandbox "$@"',
].join("\n");

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
 * variables) and `variables` (the deployment's secrets, handed over on fd 3). The child is `unshare`,
 * leader of a process group of its own: killing the group kills the namespace's PID 1, and with it
 * everything in the namespace.
 */
export function spawnIsolated(
  argv: string[],
  place: { workspace: string; isolation: Isolation; user: { uid: number; gid: number } },
  env: Record<string, string>,
  variables: Record<string, string>,
  stdin: "ignore" | "pipe",
): ChildProcess {
  const { workspace, isolation, user } = place;
  const args = [...UNSHARE, "--", "/bin/sh", "-c", SETUP, "sandbox", workspace, isolation.tmp, isolation.hide, String(user.uid), String(user.gid), ...argv];
  const child = spawn("unshare", args, { cwd: workspace, env, stdio: [stdin, "pipe", "pipe", "pipe"], detached: true });
  const script = child.stdio[3] as Writable;
  // The command may end before reading it all (EPIPE): nothing is lost that anyone needed.
  script.on("error", () => undefined);
  script.end(exportScript(variables));
  return child;
}

let available: boolean | undefined;

/**
 * Whether this machine can isolate (cached): the process is root and the whole chain works — the
 * namespaces, the mounts and the change of user — tried once on a scratch directory. The /workspace
 * mount point is made here when missing. A container without CAP_SYS_ADMIN (Docker's default) answers no.
 */
export function isolationAvailable(): boolean {
  if (available !== undefined) return available;
  available = false;
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return available;
  const scratch = mkdtempSync(join(tmpdir(), "agent-sessions-isolation-"));
  const empty = openSync("/dev/null", "r");
  try {
    mkdirSync(ISOLATED_WORKSPACE, { recursive: true, mode: 0o755 });
    for (const dir of ["ws", "tmp"]) mkdirSync(join(scratch, dir));
    const argv = [...UNSHARE, "--", "/bin/sh", "-c", SETUP, "sandbox", join(scratch, "ws"), join(scratch, "tmp"), scratch, "65534", "65534", "/bin/sh", "-c", `[ "$(id -u)" = 65534 ] && [ "$PWD" = ${ISOLATED_WORKSPACE} ]`];
    const probe = spawnSync("unshare", argv, { stdio: ["ignore", "ignore", "ignore", empty], timeout: 10_000, env: { PATH: "/usr/local/bin:/usr/bin:/bin" } });
    available = probe.status === 0;
  } catch {
    available = false;
  } finally {
    closeSync(empty);
    rmSync(scratch, { recursive: true, force: true });
  }
  return available;
}
