/** Short descriptions and input schemas of the built-in tools, as the model sees them. */
import { MAX_SUBJECT_SKILLS, OWN_SKILL_NAME_MAX, OWN_SKILL_NAME_PATTERN, SKILL_CONTENT_MAX, SKILL_NAME_MAX } from "./skills.js";

/** The Agents API's skill name bounds; no control characters, as a name is a line of later system prompts. */
const SKILL_NAME = { type: "string", minLength: 1, maxLength: SKILL_NAME_MAX, pattern: "^[^\\u0000-\\u001f\\u007f]*$" };
/** A name skill_manage takes: its own skills' form (a version skill named otherwise cannot be meant). */
const OWN_SKILL_NAME = { type: "string", minLength: 1, maxLength: OWN_SKILL_NAME_MAX, pattern: OWN_SKILL_NAME_PATTERN };

/** A path of the session's workspace, relative to it. */
const WORKSPACE_PATH = { type: "string", minLength: 1, maxLength: 1000 };
/** read_file's and write_file's bounds (src/agent-tools/files.ts), as the model is told them. */
export const DEFAULT_READ_LINES = 2000;
export const READ_BYTES_MAX = 256 * 1024;
export const WRITE_BYTES_MAX = 1024 * 1024;
const READ_KIB = READ_BYTES_MAX / 1024;
const WRITE_KIB = WRITE_BYTES_MAX / 1024;
/** A character takes at least one byte: a content longer than this is certainly over the byte bound. */
const WRITE_CHARS = WRITE_BYTES_MAX;

/** Bounds of the todo list and of one memory (the tools' schemas say them to the model). */
export const TODO_ITEMS_MAX = 100;
export const TODO_CONTENT_MAX = 500;
export const MEMORY_CONTENT_MAX = 2000;

export const BUILTIN_SPECS: Record<string, { description: string; input_schema: Record<string, unknown> }> = {
  clarify: {
    description: "Ask the user a question and wait for the answer; offer choices when the answer is one of a few.",
    input_schema: {
      type: "object",
      properties: {
        question: { type: "string", minLength: 1, maxLength: 2000 },
        choices: { type: "array", maxItems: 10, items: { type: "string", minLength: 1, maxLength: 200 } },
      },
      required: ["question"],
      additionalProperties: false,
    },
  },
  vision_analyze: {
    description:
      "Answer a question about an image: an attachment of this conversation, named by the reference in its [attachment …] line (or its filename), or an http(s) URL. PNG, JPEG, GIF or WebP, at most 5 MB.",
    input_schema: {
      type: "object",
      properties: { image: { type: "string", minLength: 1, maxLength: 2048 }, question: { type: "string", minLength: 1, maxLength: 2000 } },
      required: ["image", "question"],
      additionalProperties: false,
    },
  },
  skills_list: {
    description: "List the skills: the agent's own (read-only) and those you wrote for this user, each with its summary line.",
    input_schema: { type: "object", properties: {}, additionalProperties: false },
  },
  skill_view: {
    description: "Read one skill's full Markdown, by name.",
    input_schema: { type: "object", properties: { name: SKILL_NAME }, required: ["name"], additionalProperties: false },
  },
  skill_manage: {
    description:
      "Keep your own skills for this user: reusable instructions (Markdown) you wrote down, listed in later conversations with this user. " +
      "create {name, content}: a new skill. patch {name, old_string, new_string}: replace the one occurrence of old_string (preferred for fixes). " +
      `edit {name, content}: replace the whole content. delete {name}. At most ${MAX_SUBJECT_SKILLS} skills; the agent's own skills are read-only. ` +
      "Content is a SKILL.md: YAML front matter with the skill's name and a one-line description (what it is for, when to use it; " +
      "the line it is listed with), then the instructions: ---\\nname: <name>\\ndescription: Use when …\\n---\\n…",
    input_schema: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["create", "patch", "edit", "delete"] },
        name: { ...OWN_SKILL_NAME, description: "Lowercase letters, digits, ., _ and -." },
        content: { type: "string", minLength: 1, maxLength: SKILL_CONTENT_MAX, description: "The whole skill, Markdown (create, edit)." },
        old_string: { type: "string", minLength: 1, maxLength: SKILL_CONTENT_MAX, description: "Text that occurs exactly once in the skill (patch)." },
        new_string: { type: "string", maxLength: SKILL_CONTENT_MAX, description: "What replaces it; may be empty (patch)." },
      },
      required: ["action", "name"],
      additionalProperties: false,
      // A chain of if/then/else, not oneOf: the model API refuses oneOf, anyOf and allOf at the top of an input schema.
      if: { properties: { action: { enum: ["create", "edit"] } }, required: ["action"] },
      // `true`: the property is checked above; naming it here is what Ajv's strictRequired asks of a `required`.
      then: { required: ["content"], properties: { content: true, old_string: false, new_string: false } },
      else: {
        if: { properties: { action: { const: "patch" } }, required: ["action"] },
        then: { required: ["old_string", "new_string"], properties: { content: false, old_string: true, new_string: true } },
        else: {
          if: { properties: { action: { const: "delete" } }, required: ["action"] },
          then: { properties: { content: false, old_string: false, new_string: false } },
        },
      },
    },
  },
  todo: {
    description: `Read the session's todo list, or replace it: items (at most ${TODO_ITEMS_MAX}), each content and status (pending, in_progress or done; default pending). Without items, the list is read.`,
    input_schema: {
      type: "object",
      properties: {
        items: {
          type: "array",
          maxItems: TODO_ITEMS_MAX,
          items: {
            type: "object",
            properties: {
              content: { type: "string", minLength: 1, maxLength: TODO_CONTENT_MAX },
              status: { type: "string", enum: ["pending", "in_progress", "done"], default: "pending" },
            },
            required: ["content"],
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  },
  memory: {
    description: "Remember facts about this user across sessions. add {content}: a new memory. list (default): all, each with its id. remove {id}: forget one.",
    input_schema: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["add", "list", "remove"], default: "list" },
        content: { type: "string", minLength: 1, maxLength: MEMORY_CONTENT_MAX },
        id: { type: "string", minLength: 1, maxLength: 64 },
      },
      additionalProperties: false,
      // if/then rather than oneOf: the model API refuses oneOf, anyOf and allOf at the top of an input schema.
      if: { properties: { action: { const: "add" } }, required: ["action"] },
      then: { required: ["content"], properties: { content: true, id: false } },
      else: {
        if: { properties: { action: { const: "remove" } }, required: ["action"] },
        then: { required: ["id"], properties: { content: false, id: true } },
        else: { properties: { content: false, id: false } },
      },
    },
  },
  session_search: {
    description: "Search this user's earlier conversations with the agent for a word or phrase (case-insensitive); answers up to 10 matching messages.",
    input_schema: { type: "object", properties: { query: { type: "string", minLength: 1, maxLength: 500 } }, required: ["query"], additionalProperties: false },
  },
  execute_code: {
    description:
      "Run a Python (default) or JavaScript (Node.js) program in the session's workspace, under the terminal's limits; answers its output and exit status.",
    input_schema: {
      type: "object",
      properties: { language: { type: "string", enum: ["python", "javascript"], default: "python" }, code: { type: "string", minLength: 1, maxLength: 65536 } },
      required: ["code"],
      additionalProperties: false,
    },
  },
  web_search: {
    description: "Search the web. Answers up to `limit` results, each with its title, URL and a snippet.",
    input_schema: {
      type: "object",
      properties: { query: { type: "string", minLength: 1, maxLength: 500 }, limit: { type: "integer", minimum: 1, maximum: 20, default: 5 } },
      required: ["query"],
      additionalProperties: false,
    },
  },
  web_extract: {
    description: "Read web pages (at most 5) as plain text, each under its URL.",
    input_schema: {
      type: "object",
      properties: { urls: { type: "array", minItems: 1, maxItems: 5, items: { type: "string", minLength: 1, maxLength: 2048 } } },
      required: ["urls"],
      additionalProperties: false,
    },
  },
  terminal: {
    description:
      "Run a shell command (/bin/sh) in the session's workspace. It waits for the command (up to `timeout` seconds, default 30) and returns its output. With background: true it returns a process id at once; manage the process with the process tool (at most 4 run at once per session).",
    input_schema: {
      type: "object",
      properties: {
        command: { type: "string", minLength: 1, maxLength: 65536 },
        background: { type: "boolean", default: false },
        timeout: { type: "integer", minimum: 1, maximum: 600 },
      },
      required: ["command"],
      additionalProperties: false,
    },
  },
  process: {
    description:
      "Manage background processes started with terminal(background: true). list: all of this session's. poll: state and new output since the last poll. log: kept output by lines (offset, limit; default the last 200). wait: until it exits or `timeout` seconds (default 30). kill: kill it with everything it started. write: send `data` to its input. id is required except for list.",
    input_schema: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["list", "poll", "log", "wait", "kill", "write"] },
        id: { type: "string", minLength: 1, maxLength: 64 },
        data: { type: "string", maxLength: 65536 },
        timeout: { type: "integer", minimum: 1, maximum: 600, default: 30 },
        offset: { type: "integer", minimum: 0, maximum: 1000000 },
        limit: { type: "integer", minimum: 1, maximum: 1000, default: 200 },
      },
      required: ["action"],
      additionalProperties: false,
    },
  },
  read_file: {
    description: `Read a text file of the workspace. A whole file comes back as it is; a long one in ranges of lines: offset (first line, from 1) and limit (lines, default ${DEFAULT_READ_LINES}), at most ${READ_KIB} KiB at a time, with a last line saying where to read on.`,
    input_schema: {
      type: "object",
      properties: {
        path: WORKSPACE_PATH,
        offset: { type: "integer", minimum: 1, default: 1 },
        limit: { type: "integer", minimum: 1, maximum: 10000, default: DEFAULT_READ_LINES },
      },
      required: ["path"],
      additionalProperties: false,
    },
  },
  write_file: {
    description: `Write a file of the workspace (its folders are made), replacing what it held; at most ${WRITE_KIB} KiB.`,
    input_schema: {
      type: "object",
      properties: { path: WORKSPACE_PATH, content: { type: "string", maxLength: WRITE_CHARS } },
      required: ["path", "content"],
      additionalProperties: false,
    },
  },
  patch: {
    description:
      "Replace the one occurrence of old_string in a file of the workspace with new_string; fails when it occurs never or more than once (give more context).",
    input_schema: {
      type: "object",
      properties: {
        path: WORKSPACE_PATH,
        old_string: { type: "string", minLength: 1, maxLength: WRITE_CHARS },
        new_string: { type: "string", maxLength: WRITE_CHARS },
      },
      required: ["path", "old_string", "new_string"],
      additionalProperties: false,
    },
  },
  search_files: {
    description:
      "Search the workspace. target content (default): lines matching `pattern`, an extended regular expression, as path:line:text, in files matching `file_glob` if given. target files: files whose name matches the glob `pattern`. Sorted; page with limit and offset.",
    input_schema: {
      type: "object",
      properties: {
        pattern: { type: "string", minLength: 1, maxLength: 500 },
        target: { type: "string", enum: ["content", "files"], default: "content" },
        path: { type: "string", maxLength: 1000, default: "." },
        file_glob: { type: "string", minLength: 1, maxLength: 200 },
        limit: { type: "integer", minimum: 1, maximum: 200, default: 50 },
        offset: { type: "integer", minimum: 0, maximum: 100000, default: 0 },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
  },
};

/** A delegation tool's input (the `delegation` toolset: one tool per callable agent). */
export const DELEGATION_INPUT = {
  type: "object",
  properties: {
    message: {
      type: "string",
      minLength: 1,
      maxLength: 100_000,
      description: "The task for the agent, with every detail it needs: it sees nothing else of this conversation.",
    },
  },
  required: ["message"],
  additionalProperties: false,
};

/** What the model reads of a callable agent: the caller's description, and how the tool behaves. */
export const delegationDescription = (description: string) =>
  `${description}\n\nDelegates a task to this agent in a thread of its own and returns its final answer.`;
