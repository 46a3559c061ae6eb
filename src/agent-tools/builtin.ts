/** The built-in tools, run by a worker for a session. Each returns text for the model and success. */
import { relative } from "node:path";
import type { Skill } from "../agents/domain/agent-config.js";
import { DEFAULT_READ_LINES } from "./domain/builtin-tool-specs.js";
import type { SkillSummary } from "./domain/skills.js";
import type { Attachment } from "../sessions/domain/events.js";
import type { TokenUsage } from "../providers/domain/model-types.js";
import type { MemoryStore } from "./store/memories.js";
import type { PastConversation } from "../sessions/store/past-conversations.js";
import type { TodoStore } from "./store/todos.js";
import { patchWorkspaceFile, readLines, workspacePath, writeWorkspaceFile } from "./files.js";
import { unisolatedNote, unisolatedRefusal } from "./sandbox/tool-isolation.js";
import type { ToolPlace } from "./sandbox/sandbox.js";
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

/** Where the tools run (`ToolPlace`: workspace, user, isolation, the deployment's variables), and for whom. */
export interface ToolContext extends ToolPlace {
  orgId: string;
  agentId: string;
  subjectId: string;
  sessionId: string;
  skills: Skill[];
  /** The subject's own skills (`skill_manage`), by name. */
  subjectSkills(): Promise<SkillSummary[]>;
  signal: AbortSignal;
  /** Text of this subject's other conversations with the agent, newest first (for session_search). */
  otherConversations(): Promise<PastConversation[]>;
  /** The session's model (its agent version's `modelName`), which vision_analyze asks. */
  modelName: string;
  /** The attachment of the conversation named by its reference or filename (for vision_analyze). */
  attachment(name: string): Promise<Attachment | undefined>;
}

const MAX_MEMORIES = 200;
const DEFAULT_SEARCH_RESULTS = 5;

type Input = Record<string, unknown>;
const str = (input: Input, key: string): string | undefined => (typeof input[key] === "string" ? (input[key] as string) : undefined);
const fail = (text: string): ToolOutcome => ({ ok: false, text });
const ok = (text: string): ToolOutcome => ({ ok: true, text });

/** The tools that run the agent's own commands: refused, or said to be, when the worker cannot isolate them. */
const COMMAND_TOOLS = new Set(["terminal", "process", "execute_code"]);

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
    const unisolated = COMMAND_TOOLS.has(name) ? ctx.unisolated : null;
    if (unisolated && !unisolated.allowed) return fail(unisolatedRefusal(unisolated));
    const outcome = await this.dispatch(name, rawInput, ctx);
    return unisolated ? { ...outcome, text: `${outcome.text}\n${unisolatedNote(unisolated)}` } : outcome;
  }

  private async dispatch(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const input: Input = rawInput && typeof rawInput === "object" && !Array.isArray(rawInput) ? (rawInput as Input) : {};
    await ctx.prepare();
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
        const code = String(input.code);
        // The sandbox's own runtimes, from its PATH: the worker's Node may live where its user cannot reach (under /root).
        return this.terminal.run(input.language === "javascript" ? "node" : "python3", [input.language === "javascript" ? "-e" : "-c", code], ctx);
      }
      case "session_search":
        return this.search(input, ctx);
      case "web_search":
        return this.web.webSearch(String(input.query), typeof input.limit === "number" ? input.limit : DEFAULT_SEARCH_RESULTS, ctx.signal);
      case "web_extract":
        return this.web.webExtract((input.urls as string[]).slice(0, MAX_URLS), ctx.signal);
      case "vision_analyze":
        return this.vision.analyze({
          image: String(input.image),
          question: String(input.question),
          modelName: ctx.modelName,
          attachment: ctx.attachment,
          signal: ctx.signal,
        });
      case "clarify":
        return fail("clarify is handled by the session, not run as a tool");
      default:
        return fail(`unknown built-in tool ${name}`);
    }
  }

  private async todo(input: Input, ctx: ToolContext): Promise<ToolOutcome> {
    if (Array.isArray(input.items)) {
      const items = (input.items as { content: string; status?: string }[]).map((i) => ({ content: i.content, status: i.status ?? "pending" }));
      await this.todos.replace(ctx.sessionId, items);
    }
    const items = await this.todos.get(ctx.sessionId);
    return ok(items.length === 0 ? "The todo list is empty." : items.map((i, n) => `${n + 1}. [${i.status}] ${i.content}`).join("\n"));
  }

  private async memory(input: Input, ctx: ToolContext): Promise<ToolOutcome> {
    const scope = { orgId: ctx.orgId, agentId: ctx.agentId, subjectId: ctx.subjectId };
    const action = str(input, "action") ?? "list";
    if (action === "add") {
      if ((await this.memories.count(scope)) >= MAX_MEMORIES) return fail(`at most ${MAX_MEMORIES} memories are kept; remove some first`);
      const id = await this.memories.add(scope, String(input.content));
      return ok(`Remembered (${id}).`);
    }
    if (action === "remove") {
      return (await this.memories.remove(scope, String(input.id))) ? ok("Forgotten.") : fail("no memory with that id");
    }
    const all = await this.memories.list(scope);
    return ok(all.length === 0 ? "No memories about this subject yet." : all.map((m) => `${m.id}: ${m.content}`).join("\n"));
  }

  private async file(name: string, input: Input, ctx: ToolContext): Promise<ToolOutcome> {
    const path = await workspacePath(ctx.workspace, str(input, "path") ?? ".");
    if (!path) return fail("input.path must stay inside the session's workspace");
    const place = this.terminal.place(ctx);
    try {
      switch (name) {
        case "read_file":
          return await this.terminal.withoutSecrets(
            ctx,
            await readLines(ctx.workspace, path, Number(input.offset ?? 1), Number(input.limit ?? DEFAULT_READ_LINES)),
          );
        case "write_file":
          return await writeWorkspaceFile(place, path, String(input.content));
        case "patch":
          return await patchWorkspaceFile(place, path, String(input.old_string), String(input.new_string));
        default: {
          const target = input.target === "files" ? "files" : "content";
          const search = {
            pattern: String(input.pattern),
            target,
            path: relative(ctx.workspace, path) || ".",
            limit: Number(input.limit ?? 50),
            offset: Number(input.offset ?? 0),
          } as const;
          return await this.terminal.withoutSecrets(
            ctx,
            await searchFiles(typeof input.file_glob === "string" ? { ...search, fileGlob: input.file_glob } : search, place, ctx.signal),
          );
        }
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return fail(code === "ENOENT" ? "no such file" : code === "EISDIR" ? "that path is a directory" : "the file operation failed");
    }
  }

  private async search(input: Input, ctx: ToolContext): Promise<ToolOutcome> {
    const query = String(input.query).toLowerCase();
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
