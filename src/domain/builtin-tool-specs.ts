/** Short descriptions and input schemas of the built-in tools, as the model sees them. */
export const BUILTIN_SPECS: Record<string, { description: string; input_schema: Record<string, unknown> }> = {
  clarify: { description: "Ask the user a question and wait for the answer.", input_schema: { type: "object", properties: { question: { type: "string" }, choices: { type: "array", items: { type: "string" } } }, required: ["question"] } },
  vision_analyze: { description: "Analyze an image.", input_schema: { type: "object", properties: { image: { type: "string" } } } },
  skills_list: { description: "List the agent's skills.", input_schema: { type: "object", properties: {} } },
  skill_view: { description: "Read one skill's full Markdown.", input_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
  skill_manage: { description: "Create or change skills.", input_schema: { type: "object", properties: {} } },
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
  terminal: { description: "Run a shell command in the session's workspace.", input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } },
  process: { description: "List background processes.", input_schema: { type: "object", properties: {} } },
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
