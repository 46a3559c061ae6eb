/**
 * The file toolset's reads and writes in the session's workspace: `read_file` (a range of lines,
 * bounded: a file longer than READ_BYTES_MAX is read in ranges of lines), `write_file`, `patch` (one
 * exact occurrence), and the path rule every file tool shares (`workspacePath`): lexically inside the
 * workspace, and still inside once symlinks are followed. Since a session's background process can
 * swap a symlink in between that check and the access, reads check what they opened, and writes are
 * made by a process of the session's own user. Inputs arrive checked against their schemas.
 */
import { constants } from "node:fs";
import { lstat, open, readlink, realpath, type FileHandle } from "node:fs/promises";
import { dirname, relative, resolve, sep } from "node:path";
import { READ_BYTES_MAX, WRITE_BYTES_MAX } from "./domain/builtin-tool-specs.js";
import { replaceOnce } from "./domain/skills.js";
import { seenPath, spawnLimited, type SandboxPlace } from "./sandbox/sandbox.js";

/** A file patch rewrites is read whole; past this it is written with write_file instead. */
const MAX_PATCH_BYTES = 4 * 1024 * 1024;

export type FileResult = { ok: boolean; text: string };
const fail = (text: string): FileResult => ({ ok: false, text });

/**
 * Whether `full` (already lexically inside the workspace) stays inside it once symlinks are followed:
 * the real path of the deepest part that exists must be inside the workspace's real path, and a
 * dangling symlink (which writing would follow) is refused.
 */
async function confined(workspace: string, full: string): Promise<boolean> {
  const root = await realpath(workspace);
  for (let probe = full; ;) {
    try {
      const real = await realpath(probe);
      return real === root || real.startsWith(root + sep);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return false;
      if (
        await lstat(probe).then(
          () => true,
          () => false,
        )
      )
        return false;
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

/**
 * The file at `path`, opened for reading without following a final symlink and without blocking on a
 * FIFO, when it is a regular file still inside the workspace: the check is made on what was opened
 * (its `/proc/self/fd` link), so a symlink swapped in after `workspacePath` checked the name gains
 * nothing. Else why not.
 */
async function openInside(workspace: string, path: string): Promise<FileHandle | string> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ELOOP") return "input.path must stay inside the session's workspace";
    throw err;
  });
  if (typeof file === "string") return file;
  const root = await realpath(workspace);
  const real = await readlink(`/proc/self/fd/${file.fd}`);
  const info = await file.stat();
  const problem = !real.startsWith(root + sep)
    ? "input.path must stay inside the session's workspace"
    : info.isDirectory()
      ? "that path is a directory"
      : !info.isFile()
        ? "that is not a regular file"
        : null;
  if (problem === null) return file;
  await file.close();
  return problem;
}

/** The longest line a read keeps: the answer's whole budget but its closing note. */
const LINE_MAX = READ_BYTES_MAX - 1024;
const CHUNK = 64 * 1024;
/** Bytes looked at for a NUL, as git and grep do, to tell a binary file. */
const BINARY_PROBE = 8000;

/**
 * Lines `offset`.. of a text file, at most `limit` of them and READ_BYTES_MAX in all, read in chunks
 * (a large file, or a huge line, is never held whole: a line over LINE_MAX is cut and says so). A file
 * read whole comes back as it is; a part ends with a line saying which lines these are and where to
 * read on.
 */
export async function readLines(workspace: string, path: string, offset: number, limit: number): Promise<FileResult> {
  const file = await openInside(workspace, path);
  if (typeof file === "string") return fail(file);
  const lines: string[] = [];
  let bytes = 0;
  let line = 1;
  let current: Buffer[] = [];
  let currentBytes = 0;
  let cut = false;
  let anyCut = false;
  let more = false;
  let endsWithNewline = false;
  const keep = (part: Buffer) => {
    const room = LINE_MAX - currentBytes;
    if (part.length > room) cut = true;
    // A copy: the chunk it comes from is read into again.
    const kept = Buffer.from(part.subarray(0, Math.max(0, room)));
    current.push(kept);
    currentBytes += kept.length;
  };
  /** Ends the current line; false when the answer is full (the line is left for the next read). */
  const finish = (): boolean => {
    if (line >= offset) {
      const size = currentBytes + 1;
      if (lines.length >= limit || (lines.length > 0 && bytes + size > READ_BYTES_MAX)) return false;
      const text = Buffer.concat(current).toString("utf8");
      lines.push(cut ? `${text} [line ${line} is longer than ${LINE_MAX} bytes: cut here]` : text);
      anyCut ||= cut;
      bytes += size;
    }
    line++;
    current = [];
    currentBytes = 0;
    cut = false;
    return true;
  };
  try {
    const chunk = Buffer.alloc(CHUNK);
    let position = 0;
    reading: for (;;) {
      const { bytesRead } = await file.read(chunk, 0, CHUNK, position);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      if (position < BINARY_PROBE && data.subarray(0, BINARY_PROBE - position).includes(0)) return fail("that is a binary file; read_file reads text");
      position += bytesRead;
      for (let from = 0; from < data.length;) {
        const newline = data.indexOf(10, from);
        const end = newline === -1 ? data.length : newline;
        if (line >= offset) keep(data.subarray(from, end));
        from = end + 1;
        endsWithNewline = newline !== -1 && from === data.length;
        if (newline === -1) break;
        if (!finish()) {
          more = true;
          break reading;
        }
      }
    }
    if (!more && !endsWithNewline && (currentBytes > 0 || cut) && !finish()) more = true;
  } finally {
    await file.close();
  }
  const total = line - 1;
  if (offset > 1 && total < offset && !more) return fail(`the file has ${total} lines; offset ${offset} is past its end`);
  if (offset === 1 && !more && !anyCut) return { ok: true, text: lines.join("\n") + (endsWithNewline && lines.length > 0 ? "\n" : "") };
  const last = offset + lines.length - 1;
  const range = lines.length === 0 ? "no lines" : `lines ${offset}-${last}`;
  const note = more ? `[${range}; more follow: read on with offset ${last + 1}]` : `[${range}; the end of the file]`;
  return { ok: true, text: `${lines.join("\n")}\n${note}` };
}

/**
 * Writes `content` to `path` as the session's own process would: a shell of the session's user under
 * its limits makes the folders and writes the file, so the kernel confines the write (a symlink swapped
 * in after the name was checked leads nowhere the session's user may not write anyway).
 */
function writeAsSession(place: SandboxPlace, path: string, content: string): Promise<FileResult> {
  return new Promise((resolve) => {
    const child = spawnLimited("/bin/sh", ["-c", 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', "sh", seenPath(place, path)], place, { stdin: true });
    let errors = "";
    child.stderr!.on("data", (d: Buffer) => (errors = (errors + d.toString("utf8")).slice(0, 500)));
    child.stdout!.resume();
    child.on("error", (err) => resolve(fail(`could not write the file: ${err.message}`)));
    child.on("close", (code) =>
      resolve(code === 0 ? { ok: true, text: "" } : fail(`could not write the file${errors ? `: ${errors.trim().replace(/^sh: \d+: /, "")}` : ""}`)),
    );
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(content, "utf8");
  });
}

export async function writeWorkspaceFile(place: SandboxPlace, path: string, content: string): Promise<FileResult> {
  const bytes = Buffer.byteLength(content);
  if (bytes > WRITE_BYTES_MAX) return fail(`content is over ${WRITE_BYTES_MAX} bytes`);
  const written = await writeAsSession(place, path, content);
  return written.ok ? { ok: true, text: `Wrote ${bytes} bytes to ${relative(place.cwd, path)}.` } : written;
}

export async function patchWorkspaceFile(place: SandboxPlace, path: string, before: string, after: string): Promise<FileResult> {
  const file = await openInside(place.cwd, path);
  if (typeof file === "string") return fail(file);
  let text: string;
  try {
    if ((await file.stat()).size > MAX_PATCH_BYTES) return fail(`the file is over ${MAX_PATCH_BYTES} bytes; patch works on smaller files`);
    text = await file.readFile("utf8");
  } finally {
    await file.close();
  }
  const patched = replaceOnce(text, before, after);
  if (!patched.ok) return fail(patched.count === 0 ? "old_string was not found" : "old_string occurs more than once; give more context");
  if (Buffer.byteLength(patched.text) > WRITE_BYTES_MAX) return fail(`the patched file would be over ${WRITE_BYTES_MAX} bytes`);
  const written = await writeAsSession(place, path, patched.text);
  return written.ok ? { ok: true, text: `Patched ${relative(place.cwd, path)}.` } : written;
}
