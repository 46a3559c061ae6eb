/**
 * The `preview` of a built-in tool use: one short line saying what the call does, for a client to show
 * beside it (the command a terminal runs, the file a write changes, the pages a fetch reads) without
 * rendering its input. Only tools whose input has such a line get one; the rest have none. Pure.
 */
const MAX = 200;

type Input = Record<string, unknown>;
const s = (input: Input, key: string): string => (typeof input[key] === "string" ? (input[key] as string) : "");

/** The first non-empty line, with ` …` when more follow. */
function line(text: string): string {
  const first =
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "") ?? "";
  return first + (text.trim().includes("\n") ? " …" : "");
}

const PREVIEWS: Record<string, (input: Input) => string> = {
  terminal: (i) => `$ ${line(s(i, "command"))}${i.background === true ? " (background)" : ""}`,
  process: (i) => [s(i, "action"), s(i, "id")].filter(Boolean).join(" "),
  execute_code: (i) => `${s(i, "language") || "python"}: ${line(s(i, "code"))}`,
  read_file: (i) => `read ${s(i, "path")}`,
  write_file: (i) => `write ${s(i, "path")} (${Buffer.byteLength(s(i, "content"))} bytes)`,
  patch: (i) => `patch ${s(i, "path")}`,
  search_files: (i) => `search ${i.target === "files" ? "file names" : "contents"} for ${s(i, "pattern")}${s(i, "path") ? ` in ${s(i, "path")}` : ""}`,
  web_search: (i) => `search the web for ${s(i, "query")}`,
  web_extract: (i) => `read ${Array.isArray(i.urls) ? i.urls.filter((u): u is string => typeof u === "string").join(", ") : ""}`,
  vision_analyze: (i) => `look at ${s(i, "image").startsWith("data:") ? "an image" : s(i, "image")}: ${s(i, "question")}`,
  session_search: (i) => `search earlier conversations for ${s(i, "query")}`,
  skill_manage: (i) => [s(i, "action"), s(i, "name")].filter(Boolean).join(" skill "),
  memory: (i) => (s(i, "action") === "add" ? `remember: ${s(i, "content")}` : ""),
};

export function toolPreview(name: string, input: unknown): string | undefined {
  const make = PREVIEWS[name];
  if (!make || !input || typeof input !== "object" || Array.isArray(input)) return undefined;
  const text = make(input as Input)
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return undefined;
  return text.length > MAX ? `${text.slice(0, MAX - 1)}…` : text;
}
