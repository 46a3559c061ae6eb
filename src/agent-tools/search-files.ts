/**
 * `search_files`: file contents by regular expression (`target: content`, GNU grep's extended
 * syntax) or file names by glob (`target: files`), within the session's workspace. The search runs as a
 * sandboxed process like `terminal` (the session's user, its workspace, a time limit and an output
 * bound), which also keeps a pathological pattern from holding the worker: grep's matcher does not
 * backtrack, and the process is killed at the limit. Symbolic links are never followed (grep -r and
 * find do not), so a link to a directory outside the workspace is not searched; binary files are
 * skipped. Results are sorted (path, then line) so `offset` pages through a stable list.
 */
import { runInSandbox, type SandboxPlace } from "./sandbox/sandbox.js";

export interface SearchFilesInput {
  pattern: string;
  target: "content" | "files";
  /** Relative to the workspace, already checked to stay inside it. */
  path: string;
  fileGlob?: string;
  limit: number;
  offset: number;
}

const TIMEOUT_MS = 10_000;
/** Characters of a matching line shown: a minified file's one line is not the whole answer. */
const LINE_CHARS = 300;

/**
 * The pipeline, with every input passed as a positional argument (never spliced into the script):
 * $1 pattern, $2 glob, $3 path, $4 first line wanted (offset + 1), $5 lines wanted (limit + 1, the
 * extra one saying there is more).
 */
const CONTENT = [
  'err=$(grep -E -e "$1" 2>&1 </dev/null); if [ $? -eq 2 ]; then printf "%s\\n" "$err"; exit 2; fi',
  'grep -rnIsE ${2:+--include="$2"} -e "$1" -- "$3" | sed "s|^\\./||" | LC_ALL=C sort -t: -k1,1 -k2,2n | tail -n +"$4" | head -n "$5" | cut -c1-' + LINE_CHARS,
  "exit 0",
].join("\n");
const FILES = 'find "$3" -type f -name "$1" 2>/dev/null | sed "s|^\\./||" | LC_ALL=C sort | tail -n +"$4" | head -n "$5"';

export async function searchFiles(input: SearchFilesInput, place: SandboxPlace, signal: AbortSignal): Promise<{ ok: boolean; text: string }> {
  const script = input.target === "content" ? CONTENT : FILES;
  const args = [input.pattern, input.fileGlob ?? "", input.path, String(input.offset + 1), String(input.limit + 1)];
  const run = await runInSandbox("/bin/sh", ["-c", script, "search_files", ...args], place, signal, TIMEOUT_MS);
  if (!run.ok) {
    const bad = /^grep: (.*)$/m.exec(run.text);
    if (bad) return { ok: false, text: `invalid pattern: ${bad[1]}` };
    return {
      ok: false,
      text: run.text.includes("[stopped by")
        ? `the search was stopped at its ${TIMEOUT_MS / 1000} s limit; narrow the path or the pattern`
        : "the search failed",
    };
  }
  const lines = run.text.split("\n").filter((l) => l !== "");
  if (lines.length === 0) return { ok: true, text: input.offset > 0 ? "No more matches." : "No matches." };
  const shown = lines.slice(0, input.limit);
  const more = lines.length > input.limit ? `\n[more results: use offset ${input.offset + input.limit}]` : "";
  return { ok: true, text: shown.join("\n") + more };
}
