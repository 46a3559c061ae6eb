/**
 * The file toolset's reads and writes in the session's workspace: `read_file` (a range of lines,
 * bounded: a file longer than READ_BYTES_MAX is read in ranges of lines), `write_file`, `patch` (one exact occurrence), and the path rule every file tool shares
 * (`workspacePath`): lexically inside the workspace, and still inside once symlinks are followed.
 * Inputs arrive checked against their schemas (`tool-input.ts`).
 */
import { createReadStream } from "node:fs";
import { lchown, lstat, mkdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { dirname, relative, resolve, sep } from "node:path";
import { READ_BYTES_MAX, WRITE_BYTES_MAX } from "../domain/builtin-tool-specs.js";
import { replaceOnce } from "../domain/skills.js";
import type { SandboxUser } from "./sandbox.js";

/** A file patch rewrites is read whole; past this it is written with write_file instead. */
const MAX_PATCH_BYTES = 4 * 1024 * 1024;

export interface FilePlace {
  workspace: string;
  user: SandboxUser | null;
}

export type FileResult = { ok: boolean; text: string };
const fail = (text: string): FileResult => ({ ok: false, text });

/**
 * Whether `full` (already lexically inside the workspace) stays inside it once symlinks are followed:
 * the real path of the deepest part that exists must be inside the workspace's real path, and a
 * dangling symlink (which writing would follow) is refused.
 */
async function confined(workspace: string, full: string): Promise<boolean> {
  const root = await realpath(workspace);
  for (let probe = full; ; ) {
    try {
      const real = await realpath(probe);
      return real === root || real.startsWith(root + sep);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return false;
      if (await lstat(probe).then(() => true, () => false)) return false;
      const up = dirname(probe);
      if (up === probe) return false;
      probe = up;
    }
  }
}

/** The absolute path of `path` in the workspace, or null when it would leave it (by `..` or by a symlink). */
export async function workspacePath(workspace: string, path: string): Promise<string | null> {
  const full = resolve(workspace, path);
  if (full !== workspace && !full.startsWith(workspace + sep)) return null;
  return (await confined(workspace, full)) ? full : null;
}

/** Files the worker writes for a session belong to the session's user, like those its processes write. */
async function handOver(place: FilePlace, path: string): Promise<void> {
  if (!place.user) return;
  for (let p = path; p !== place.workspace && p.startsWith(place.workspace + sep); p = dirname(p)) {
    await lchown(p, place.user.uid, place.user.gid);
  }
}

/**
 * Lines `offset`.. of a text file, at most `limit` of them and READ_BYTES_MAX in all, streamed (a large
 * file is never read whole). A file read whole comes back as it is; a part ends with a line saying
 * which lines these are and where to read on.
 */
export async function readLines(path: string, offset: number, limit: number): Promise<FileResult> {
  if ((await stat(path)).isDirectory()) return fail("that path is a directory");
  const stream = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const taken: string[] = [];
  let bytes = 0;
  let seen = 0;
  let more = false;
  try {
    for await (const line of lines) {
      seen++;
      if (line.includes("\u0000")) return fail("that is a binary file; read_file reads text");
      if (seen < offset) continue;
      const size = Buffer.byteLength(line) + 1;
      if (taken.length >= limit || bytes + size > READ_BYTES_MAX) {
        more = true;
        break;
      }
      taken.push(line);
      bytes += size;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (seen < offset && offset > 1) return fail(`the file has ${seen} lines; offset ${offset} is past its end`);
  if (offset === 1 && !more) return { ok: true, text: await readFile(path, "utf8") };
  const last = offset + taken.length - 1;
  const range = taken.length === 0 ? "no lines" : `lines ${offset}-${last}`;
  const note = more ? `[${range}; more follow: read on with offset ${last + 1}]` : `[${range}; the end of the file]`;
  return { ok: true, text: `${taken.join("\n")}\n${note}` };
}

export async function writeWorkspaceFile(place: FilePlace, path: string, content: string): Promise<FileResult> {
  const bytes = Buffer.byteLength(content);
  if (bytes > WRITE_BYTES_MAX) return fail(`content is over ${WRITE_BYTES_MAX} bytes`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content, "utf8");
  await handOver(place, path);
  return { ok: true, text: `Wrote ${bytes} bytes to ${relative(place.workspace, path)}.` };
}

export async function patchWorkspaceFile(place: FilePlace, path: string, before: string, after: string): Promise<FileResult> {
  if ((await stat(path)).size > MAX_PATCH_BYTES) return fail(`the file is over ${MAX_PATCH_BYTES} bytes; patch works on smaller files`);
  const patched = replaceOnce(await readFile(path, "utf8"), before, after);
  if (!patched.ok) return fail(patched.count === 0 ? "old_string was not found" : "old_string occurs more than once; give more context");
  if (Buffer.byteLength(patched.text) > WRITE_BYTES_MAX) return fail(`the patched file would be over ${WRITE_BYTES_MAX} bytes`);
  await writeFile(path, patched.text, "utf8");
  await handOver(place, path);
  return { ok: true, text: `Patched ${relative(place.workspace, path)}.` };
}
