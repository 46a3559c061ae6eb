/** Short descriptions and input schemas of the built-in tools, as the model sees them. */
import { MAX_SUBJECT_SKILLS, OWN_SKILL_NAME_MAX, OWN_SKILL_NAME_PATTERN, SKILL_CONTENT_MAX, SKILL_NAME_MAX } from "./skills.js";

/** The Agents API's skill name bounds; no control characters, as a name is a line of later system prompts. */
const SKILL_NAME = { type: "string", minLength: 1, maxLength: SKILL_NAME_MAX, pattern: "^[^\\u0000-\\u001f\\u007f]*$" };
/** A name skill_manage takes: its own skills' form (a version skill named otherwise cannot be meant). */
const OWN_SKILL_NAME = { type: "string", minLength: 1, maxLength: OWN_SKILL_NAME_MAX, pattern: OWN_SKILL_NAME_PATTERN };

export const BUILTIN_SPECS: Record<string, { description: string; input_schema: Record<string, unknown> }> = {
  clarify: { description: "Ask the user a question and wait for the answer.", input_schema: { type: "object", properties: { question: { type: "string" }, choices: { type: "array", items: { type: "string" } } }, required: ["question"] } },
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
        else: { if: { properties: { action: { const: "delete" } }, required: ["action"] }, then: { properties: { content: false, old_string: false, new_string: false } } },
      },
    },
  },
  todo: { description: "Read or replace the session's todo list.", input_schema: { type: "object", properties: { items: { type: "array", items: { type: "object", properties: { content: { type: "string" }, status: { enum: ["pending", "in_progress", "done"] } } } } } } },
  memory: { description: "Remember facts about this subject across sessions: add, list or remove.", input_schema: { type: "object", properties: { action: { enum: ["add", "list", "remove"] }, content: { type: "string" }, id: { type: "string" } } } },
  session_search: { description: "Search this subject's earlier conversations with the agent.", input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } },
  execute_code: { description: "Run Python or JavaScript in the session's workspace.", input_schema: { type: "object", properties: { language: { enum: ["python", "javascript"] }, code: { type: "string" } }, required: ["code"] } },
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
  read_file: { description: "Read a file of the workspace.", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  write_file: { description: "Write a file of the workspace.", input_schema: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] } },
  patch: { description: "Replace one exact occurrence of text in a file.", input_schema: { type: "object", properties: { path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } }, required: ["path", "old_string", "new_string"] } },
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
