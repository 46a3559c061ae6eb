/**
 * Whether this machine can isolate tool processes (`isolation.ts`), probed once per process: the
 * process must be root, the programs present, and the whole chain work (namespaces, mounts and the
 * change of user), tried on a scratch directory; a worker then also makes one session network
 * (`tool-isolation.ts`). A container without CAP_SYS_ADMIN (Docker's
 * default) cannot.
 */
import { spawnSync } from "node:child_process";
import { accessSync, closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ISOLATED_WORKSPACE, isolatedCommand } from "./isolation.js";

/** The programs the sandbox runs, from bubblewrap, util-linux and socat, looked for on the sandbox's PATH. */
const PROGRAMS = ["bwrap", "nsenter", "setpriv", "prlimit", "socat"];
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";

let problem: string | null | undefined;

/** Why this machine cannot isolate tool processes, or null when it can (cached). */
export function isolationProblem(): string | null {
  problem ??= probe();
  return problem;
}

export function isolationAvailable(): boolean {
  return isolationProblem() === null;
}

function probe(): string | null {
  if (typeof process.getuid !== "function" || process.getuid() !== 0)
    return "the worker does not run as root, so it can neither make namespaces nor switch users";
  const missing = PROGRAMS.filter((name) => !SANDBOX_PATH.split(":").some((dir) => executable(join(dir, name))));
  if (missing.length > 0)
    return `${missing.join(", ")} not found on ${SANDBOX_PATH} (Debian's bubblewrap, util-linux and socat; scripts/sandbox-tools.sh installs them)`;
  const scratch = mkdtempSync(join(tmpdir(), "agent-sessions-isolation-"));
  const empty = openSync("/dev/null", "r");
  try {
    // The mount point of every workspace: the host's root is seen read-only, so it must be there.
    mkdirSync(ISOLATED_WORKSPACE, { recursive: true, mode: 0o755 });
    for (const dir of ["ws", "tmp"]) mkdirSync(join(scratch, dir));
    const check = `[ "$(id -u)" = 65534 ] && [ "$PWD" = ${ISOLATED_WORKSPACE} ] || { echo "the sandbox's user or directory is not as made" >&2; exit 1; }`;
    const place = { workspace: join(scratch, "ws"), isolation: { tmp: join(scratch, "tmp"), hide: scratch }, user: { uid: 65534, gid: 65534 } };
    const [program, args] = isolatedCommand(place, ["/bin/sh", "-c", check], false);
    const run = spawnSync(program, args, { stdio: ["ignore", "ignore", "pipe", empty], encoding: "utf8", timeout: 10_000, env: { PATH: SANDBOX_PATH } });
    if (run.status === 0) return null;
    const said = (run.stderr ?? "").trim().split("\n").pop();
    return `the sandbox could not be made here: ${said || run.error?.message || `bwrap ended with ${run.status ?? run.signal}`}`;
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
