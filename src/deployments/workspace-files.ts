/**
 * Files a caller uploads into a deployment's workspace (skill files, seed data), and reads back for
 * skills. The workspace is also the deployment's tools' to change, so a path is trusted only after its
 * real location is checked to be inside the workspace: a symbolic link a tool left there never makes
 * the service read or write outside it.
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, readdir, realpath, rename, rm } from "node:fs/promises";
import { dirname, join, sep } from "node:path";

/**
 * An upload is written beside its target under this name, then renamed over it: a reader (a tool, the
 * webhooks' scan) sees the old file or the new one, never one half written. Scans skip such names.
 */
export const UPLOAD_PREFIX = ".agent-sessions-upload-";

/** The deployment's workspace directory under the root; null for a string that is not a deployment id (never a path). */
export function deploymentWorkspaceOf(root: string, deploymentId: string): string | null {
  return /^dep_[0-9a-z]{1,64}$/.test(deploymentId) ? join(root, deploymentId) : null;
}

async function inside(workspace: string, target: string): Promise<boolean> {
  const [base, real] = await Promise.all([realpath(workspace), realpath(target)]);
  return real.startsWith(base + sep);
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR";

/** The file's text, or null when it is not there (or not inside the workspace, or larger than `maxBytes`). */
export async function readWorkspaceFile(workspace: string, path: string, maxBytes: number): Promise<string | null> {
  const target = join(workspace, path);
  try {
    if (!(await inside(workspace, target))) return null;
    const file = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const { size } = await file.stat();
      if (size > maxBytes) return null;
      return (await file.readFile()).toString("utf8");
    } finally {
      await file.close();
    }
  } catch (err) {
    if (isMissing(err) || (err as NodeJS.ErrnoException).code === "ELOOP") return null;
    throw err;
  }
}

/**
 * Writes (creates or replaces) the file at once as the service's own user (one that runs as root writes
 * as the deployment's user instead: `writeAsUser`); false when a directory on its path is a symbolic link
 * or not a directory, or the path names a directory. A link at the path itself is replaced, not followed.
 */
export async function writeWorkspaceFile(workspace: string, path: string, bytes: Buffer): Promise<boolean> {
  await mkdir(workspace, { recursive: true, mode: 0o700 });
  let dir = workspace;
  for (const part of path.split("/").slice(0, -1)) {
    dir = join(dir, part);
    const found = await lstat(dir).catch((err: unknown) => (isMissing(err) ? null : Promise.reject(err)));
    if (found && (found.isSymbolicLink() || !found.isDirectory())) return false;
    if (!found) {
      await mkdir(dir, { mode: 0o755 });
    }
  }
  const target = join(workspace, path);
  const partial = join(dirname(target), UPLOAD_PREFIX + randomBytes(8).toString("hex"));
  const file = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    await file.writeFile(bytes);
  } finally {
    await file.close();
  }
  try {
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true });
    if ((err as NodeJS.ErrnoException).code === "EISDIR") return false;
    throw err;
  }
  return true;
}

/** Reads files of deployments' workspaces under the root (skills with `source: file`), as each deployment's user when there is one. */
export function workspaceFiles(root: string, userOf: (deploymentId: string) => { uid: number; gid: number } | null) {
  return {
    read(deploymentId: string, path: string, maxBytes: number): Promise<string | null> {
      const workspace = deploymentWorkspaceOf(root, deploymentId);
      if (!workspace) return Promise.resolve(null);
      const user = userOf(deploymentId);
      return user ? readAsUser(workspace, path, maxBytes, user) : readWorkspaceFile(workspace, path, maxBytes);
    },
  };
}

/**
 * Every file of a workspace with its size and modification time, at most `maxFiles` of them (the rest
 * are not listed: `truncated`). Links are listed as themselves, never followed.
 */
export async function scanWorkspace(workspace: string, maxFiles: number): Promise<{ files: [string, number, number][]; truncated: boolean }> {
  let entries;
  try {
    entries = await readdir(workspace, { recursive: true, withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return { files: [], truncated: false };
    throw err;
  }
  const files: [string, number, number][] = [];
  for (const entry of entries) {
    if (entry.isDirectory() || entry.name.startsWith(UPLOAD_PREFIX)) continue;
    if (files.length >= maxFiles) return { files, truncated: true };
    const full = join(entry.parentPath, entry.name);
    const info = await lstat(full).catch((err: unknown) => (isMissing(err) ? null : Promise.reject(err)));
    if (info) files.push([full.slice(workspace.length + 1), info.size, Math.trunc(info.mtimeMs)]);
  }
  return { files, truncated: false };
}

/**
 * Runs `sh -c script` in the workspace as the deployment's user: a path it follows (a link a tool left,
 * or swapped in while the service works) reaches only what that user may touch anyway, never what root
 * may. Answers the exit code and the output.
 */
function asUser(
  workspace: string,
  user: { uid: number; gid: number },
  script: string,
  args: string[],
  input?: Buffer,
): Promise<{ code: number | null; out: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "setpriv",
      [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--", "/bin/sh", "-c", script, "sh", ...args],
      { cwd: workspace, env: {}, stdio: ["pipe", "pipe", "ignore"] },
    );
    const chunks: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => chunks.push(d));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, out: Buffer.concat(chunks) }));
    // The script may exit before reading its input (a parent that is a file): EPIPE, which its exit code reports.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

/** `writeWorkspaceFile` done as the deployment's user (the service runs as root). */
export async function writeAsUser(workspace: string, path: string, bytes: Buffer, user: { uid: number; gid: number }): Promise<boolean> {
  const script = `case "$1" in */*) mkdir -p -- "\${1%/*}" || exit 1; dir="\${1%/*}";; *) dir=.;; esac
[ -d "$1" ] && [ ! -L "$1" ] && exit 1
part="$dir/${UPLOAD_PREFIX}$$"
cat > "$part" && mv -f -T -- "$part" "$1" || { rm -f -- "$part"; exit 1; }`;
  const { code } = await asUser(workspace, user, script, [path], bytes);
  return code === 0;
}

/** `readWorkspaceFile` done as the deployment's user: null when it cannot read the file or it is over `maxBytes`. */
export async function readAsUser(workspace: string, path: string, maxBytes: number, user: { uid: number; gid: number }): Promise<string | null> {
  const { code, out } = await asUser(workspace, user, '[ -f "$1" ] && head -c "$2" -- "$1"', [path, String(maxBytes + 1)]);
  return code === 0 && out.length <= maxBytes ? out.toString("utf8") : null;
}
