/**
 * The local sandbox: each tool process tree, of an ordinary session or of a deployment's thread, starts
 * in new mount, PID, IPC and UTS namespaces made by bubblewrap (`bwrap`), where
 *   - the host's filesystem is seen read-only, with the workspace bound at /workspace (the same path for
 *     every session and deployment) and /tmp the session's or deployment's own directory (kept across
 *     its commands, as a container's is); /var/tmp and /dev/shm are fresh and private, /dev minimal;
 *   - the workspace root (every session's and deployment's workspace, the snapshots) is covered by an
 *     empty tmpfs, so not even the names of other workspaces show;
 *   - /proc is the namespace's own: only the sandbox's processes are in it (the service's environment is
 *     not even there to be refused); bwrap is its PID 1, and when the command ends so does the
 *     namespace, with whatever the command left behind, `setsid` or not;
 *   - the network is the session's (`session-networks.ts`) for the agent's commands: only a loopback,
 *     whose one way out is the bridge to the egress proxy, which admits what the outbound policy permits;
 *     the service's own helpers (a file write, a search) get an empty one. Nothing of the host's (its
 *     loopback, where the stores and the service listen; its addresses; metadata; private networks) has
 *     a route;
 *   - bwrap runs `setpriv`, which becomes the sandbox's uid with no capabilities and no_new_privs (no
 *     setuid program regains any); only then are the secret variables read (from fd 3: never an
 *     argument, which /proc shows every user, and never in the environment of a process running as root,
 *     where LD_PRELOAD and its kind would act on root's programs), and the command starts under its
 *     `prlimit` limits.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import type { DockerEngine } from "./docker.js";

/** Where a session's or deployment's workspace is, as its isolated processes see it. */
export const ISOLATED_WORKSPACE = "/workspace";

/** The host directories an isolated process tree is given or denied. */
export interface Isolation {
  /** The session's or deployment's /tmp on the host. */
  tmp: string;
  /** Covered by an empty tmpfs: the workspace root. */
  hide: string;
  /** The `docker` backend instead of namespaces: containers on this engine, labelled with the deployment. */
  container?: { engine: DockerEngine; deploymentId: string };
}

/** Where and as whom an isolated process tree runs; `network`: the namespace it joins (/proc/<pid>/ns/net), else an empty one of its own. */
export interface IsolatedPlace {
  workspace: string;
  isolation: Isolation;
  user: { uid: number; gid: number };
  network?: string | undefined;
}

const MIB = 2 ** 20;

/** Reads the secret variables from fd 3 as the sandbox's user, then becomes the command. */
const REVEAL = ["/bin/sh", "-c", 'eval "$(cat <&3)"; exec 3<&-; exec "$@"', "sandbox"];

/**
 * The program and arguments that run `argv` in the sandbox: bwrap, in a new network namespace unless
 * the place names one (then nsenter enters it and becomes bwrap); with `secrets`, a shell reads them
 * first.
 */
export function isolatedCommand(place: IsolatedPlace, argv: string[], secrets: boolean): [string, string[]] {
  const { workspace, isolation, user, network } = place;
  const bwrap = [
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    ...(network ? [] : ["--unshare-net"]),
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--size",
    String(64 * 1024),
    "--tmpfs",
    isolation.hide,
    "--bind",
    workspace,
    ISOLATED_WORKSPACE,
    "--bind",
    isolation.tmp,
    "/tmp",
    "--perms",
    "1777",
    "--size",
    String(64 * MIB),
    "--tmpfs",
    "/var/tmp",
    "--perms",
    "1777",
    "--size",
    String(64 * MIB),
    "--tmpfs",
    "/dev/shm",
    "--hostname",
    "sandbox",
    "--chdir",
    ISOLATED_WORKSPACE,
    "--",
    "setpriv",
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    "--clear-groups",
    "--no-new-privs",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--",
    ...(secrets ? REVEAL : []),
    ...argv,
  ];
  return network ? ["nsenter", [`--net=${network}`, "--", "bwrap", ...bwrap]] : ["bwrap", bwrap];
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
 * variables) and `variables` (the deployment's secrets, handed over on fd 3 when there are any). The
 * child is bwrap (or nsenter, which becomes it), leader of a process group of its own: killing the group
 * kills the namespace's PID 1, and with it everything in the namespace.
 */
export function spawnIsolated(
  argv: string[],
  place: IsolatedPlace,
  env: Record<string, string>,
  variables: Record<string, string>,
  stdin: "ignore" | "pipe",
): ChildProcess {
  const script = exportScript(variables);
  const [program, args] = isolatedCommand(place, argv, script !== "");
  const child = spawn(program, args, {
    cwd: place.workspace,
    env,
    stdio: [stdin, "pipe", "pipe", ...(script === "" ? [] : ["pipe" as const])],
    detached: true,
  });
  if (script !== "") {
    const secrets = child.stdio[3] as Writable;
    // The command may end before reading it all (EPIPE): nothing is lost that anyone needed.
    secrets.on("error", () => undefined);
    secrets.end(script);
  }
  return child;
}
