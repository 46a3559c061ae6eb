/** The built-in tools, run by a worker for a session. Each returns text for the model and success. */
import { lchown, lstat, mkdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { dirname, relative, resolve, sep } from "node:path";
import type { Skill } from "../domain/agent-config.js";
import { replaceOnce, type SkillSummary } from "../domain/skills.js";
import type { Attachment } from "../domain/events.js";
import type { TokenUsage } from "../domain/model-types.js";
import type { MemoryStore } from "../store/memories.js";
import type { PastConversation } from "../store/past-conversations.js";
import type { TodoStore } from "../store/todos.js";
import { prepareWorkspace, type SandboxUser } from "./sandbox.js";
import { searchFiles } from "./search-files.js";
import type { SkillManageInput, SkillTools } from "./skills.js";
import type { TerminalTools } from "./terminal.js";
import { inputProblem } from "./tool-input.js";
import type { VisionTool } from "./vision.js";
import { MAX_URLS, type WebTools } from "./web.js";

export interface ToolOutcome {
  ok: boolean;
  text: string;
  /** Tokens of the model calls the tool made (vision_analyze), counted in the turn's usage. */
  usage?: TokenUsage;
}

export interface ToolContext {
  orgId: string;
  agentId: string;
  subjectId: string;
  sessionId: string;
  skills: Skill[];
  /** The subject's own skills (`skill_manage`), by name. */
  subjectSkills(): Promise<SkillSummary[]>;
  workspace: string;
  /** The session's own user for tool processes and files, when the worker can switch users. */
  user: SandboxUser | null;
  signal: AbortSignal;
  /** Text of this subject's other conversations with the agent, newest first (for session_search). */
  otherConversations(): Promise<PastConversation[]>;
  /** The session's model (its agent version's `modelName`), which vision_analyze asks. */
  modelName: string;
  /** The attachment of the conversation named by its reference or filename (for vision_analyze). */
  attachment(name: string): Promise<Attachment | undefined>;
}

const MAX_READ_BYTES = 256 * 1024;
const MAX_WRITE_BYTES = 1024 * 1024;
const MAX_MEMORIES = 200;
const DEFAULT_SEARCH_RESULTS = 5;

type Input = Record<string, unknown>;
const str = (input: Input, key: string): string | undefined => (typeof input[key] === "string" ? (input[key] as string) : undefined);
const fail = (text: string): ToolOutcome => ({ ok: false, text });
const ok = (text: string): ToolOutcome => ({ ok: true, text });

/** A path inside the workspace, or null when it would leave it. */
function inside(workspace: string, path: string): string | null {
  const full = resolve(workspace, path);
  return full === workspace || full.startsWith(workspace + sep) ? full : null;
}

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

/** Files the worker writes for a session belong to the session's user, like those its processes write. */
async function handOver(ctx: ToolContext, path: string): Promise<void> {
  if (!ctx.user) return;
  for (let p = path; p !== ctx.workspace && p.startsWith(ctx.workspace + sep); p = dirname(p)) {
    await lchown(p, ctx.user.uid, ctx.user.gid);
  }
}

export class BuiltinTools {
  constructor(
    private readonly memories: MemoryStore,
    private readonly todos: TodoStore,
    readonly web: WebTools,
    private readonly skills: SkillTools,
    private readonly vision: VisionTool,
    readonly terminal: TerminalTools,
  ) {}

  async run(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const problem = inputProblem(name, rawInput ?? {});
    if (problem) return fail(problem);
    const input: Input = rawInput && typeof rawInput === "object" && !Array.isArray(rawInput) ? (rawInput as Input) : {};
    await prepareWorkspace(ctx.workspace, ctx.user);
    switch (name) {
      case "skills_list":
        return this.skills.list(ctx);
      case "skill_view":
        return this.skills.view(ctx, String(input.name));
      case "skill_manage":
        return this.skills.manage(input as unknown as SkillManageInput, ctx);
      case "todo":
        return this.todo(input, ctx);
      case "memory":
        return this.memory(input, ctx);
      case "read_file":
      case "write_file":
      case "patch":
      case "search_files":
        return this.file(name, input, ctx);
      case "terminal":
        return this.terminal.terminal(input, ctx);
      case "process":
        return this.terminal.process(input, ctx);
      case "execute_code": {
        const code = str(input, "code");
        const language = str(input, "language") ?? "python";
        if (!code) return fail("input.code (string) is required");
        if (language === "python") return this.terminal.run("python3", ["-c", code], ctx);
        if (language === "javascript") return this.terminal.run(process.execPath, ["-e", code], ctx);
        return fail("input.language must be python or javascript");
      }
      case "session_search":
        return this.search(input, ctx);
      case "web_search":
        return this.web.webSearch(String(input.query), typeof input.limit === "number" ? input.limit : DEFAULT_SEARCH_RESULTS, ctx.signal);
      case "web_extract":
        return this.web.webExtract((input.urls as string[]).slice(0, MAX_URLS), ctx.signal);
      case "vision_analyze":
        return this.vision.analyze({ image: String(input.image), question: String(input.question), modelName: ctx.modelName, attachment: ctx.attachment, signal: ctx.signal });
      case "clarify":
        return fail("clarify is handled by the session, not run as a tool");
      default:
        return fail(`unknown built-in tool ${name}`);
    }
  }

  private async todo(input: Input, ctx: ToolContext): Promise<ToolOutcome> {
    if (Array.isArray(input.items)) {
      const items = input.items
        .filter((i): i is Input => !!i && typeof i === "object")
        .slice(0, 100)
        .map((i) => ({ content: String(i.content ?? "").slice(0, 500), status: ["pending", "in_progress", "done"].includes(String(i.status)) ? String(i.status) : "pending" }));
      await this.todos.replace(ctx.sessionId, items);
    }
    const items = await this.todos.get(ctx.sessionId);
    return ok(items.length === 0 ? "The todo list is empty." : items.map((i, n) => `${n + 1}. [${i.status}] ${i.content}`).join("\n"));
  }

  private async memory(input: Input, ctx: ToolContext): Promise<ToolOutcome> {
    const scope = { orgId: ctx.orgId, agentId: ctx.agentId, subjectId: ctx.subjectId };
    const action = str(input, "action") ?? "list";
    if (action === "add") {
      const content = str(input, "content");
      if (!content) return fail("input.content (string) is required to add a memory");
      if ((await this.memories.count(scope)) >= MAX_MEMORIES) return fail(`at most ${MAX_MEMORIES} memories are kept; remove some first`);
      const id = await this.memories.add(scope, content.slice(0, 2000));
      return ok(`Remembered (${id}).`);
    }
    if (action === "remove") {
      return (await this.memories.remove(scope, str(input, "id") ?? "")) ? ok("Forgotten.") : fail("no memory with that id");
    }
    const all = await this.memories.list(scope);
    return ok(all.length === 0 ? "No memories about this subject yet." : all.map((m) => `${m.id}: ${m.content}`).join("\n"));
  }

  private async file(name: string, input: Input, ctx: ToolContext): Promise<ToolOutcome> {
    const path = inside(ctx.workspace, str(input, "path") ?? ".");
    if (!path || !(await confined(ctx.workspace, path))) return fail("input.path must stay inside the session's workspace");
    try {
      switch (name) {
        case "read_file": {
          const info = await stat(path);
          if (info.size > MAX_READ_BYTES) return fail(`the file is over ${MAX_READ_BYTES} bytes`);
          return ok(await readFile(path, "utf8"));
        }
        case "write_file": {
          const content = str(input, "content") ?? "";
          if (Buffer.byteLength(content) > MAX_WRITE_BYTES) return fail(`content is over ${MAX_WRITE_BYTES} bytes`);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, content, "utf8");
          await handOver(ctx, path);
          return ok(`Wrote ${Buffer.byteLength(content)} bytes to ${relative(ctx.workspace, path)}.`);
        }
        case "patch": {
          const before = str(input, "old_string");
          const after = str(input, "new_string") ?? "";
          if (!before) return fail("input.old_string (string) is required");
          const patched = replaceOnce(await readFile(path, "utf8"), before, after);
          if (!patched.ok) return fail(patched.count === 0 ? "old_string was not found" : "old_string occurs more than once; give more context");
          await writeFile(path, patched.text, "utf8");
          await handOver(ctx, path);
          return ok(`Patched ${relative(ctx.workspace, path)}.`);
        }
        default: {
          const target = input.target === "files" ? "files" : "content";
          const search = { pattern: String(input.pattern), target, path: relative(ctx.workspace, path) || ".", limit: Number(input.limit ?? 50), offset: Number(input.offset ?? 0) } as const;
          return searchFiles(typeof input.file_glob === "string" ? { ...search, fileGlob: input.file_glob } : search, this.terminal.place(ctx), ctx.signal);
        }
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return fail(code === "ENOENT" ? "no such file" : code === "EISDIR" ? "that path is a directory" : "the file operation failed");
    }
  }

  private async search(input: Input, ctx: ToolContext): Promise<ToolOutcome> {
    const query = (str(input, "query") ?? "").toLowerCase();
    if (!query) return fail("input.query (string) is required");
    const hits: string[] = [];
    for (const convo of await ctx.otherConversations()) {
      for (const text of convo.texts) {
        if (hits.length >= 10) break;
        if (text.toLowerCase().includes(query)) hits.push(`[${convo.title ?? convo.sessionId}] ${text.slice(0, 300)}`);
      }
    }
    return ok(hits.length === 0 ? "Nothing found in earlier conversations." : hits.join("\n"));
  }
}
