/** The bad-input tables of the agents validation tests: the fields the create, full-replace and PATCH bodies share, and rate limits. */

/** One bad input: the fields to send and the `path: constraint` entry the message must carry. */
export interface Case {
  what: string;
  fields: Record<string, unknown>;
  entry: string;
}

export const x = (n: number) => "x".repeat(n);
export const times = <T>(n: number, item: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => item(i));
export const docs = { type: "url", name: "docs", url: "https://docs.example.com/mcp" };
export const tool = (t: Record<string, unknown>) => ({ tools: [t] });
export const custom = (over: Record<string, unknown> = {}) => ({
  type: "custom_tool",
  name: "lookup",
  description: "Looks up",
  input_schema: { type: "object" },
  ...over,
});
export const mcp = (over: Record<string, unknown> = {}) => ({ tools: [{ type: "mcp_toolset", mcpServerName: "docs", ...over }], mcpServers: [docs] });
const toolset = (over: Record<string, unknown>) => tool({ type: "agent_toolset", ...over });
export const role = (over: Record<string, unknown>) => ({ roles: [{ name: "r", tools: [], ...over }] });
export const serverItem = (over: Record<string, unknown>) => ({ mcpServers: [{ ...docs, ...over }] });
export const without = (o: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

export const POLICY_ENUM = "must be one of: always_allow, always_ask, always_deny";
export const TOOLSET_NAMES = "must be one of: clarify, vision, skills, todo, memory, session_search, code_execution, web, terminal, file, delegation";
export const METADATA_VALUE = "metadata[*]: must be one of: string (at most 512 characters), number, boolean, null";

/** An input schema over 64 KB as JSON, within the schema's other bounds (at most 100 properties). */
const hugeInputSchema = {
  type: "object",
  properties: Object.fromEntries(times(100, (i) => [`p${i}`, { type: "string", description: x(700) }])),
};

/** Bad values of the fields that the create, full-replace and PATCH bodies share. */
export const fieldCases: Case[] = [
  { what: "name of the wrong type", fields: { name: 5 }, entry: "name: must be string" },
  { what: "empty name", fields: { name: "" }, entry: "name: must not be empty" },
  { what: "name too long", fields: { name: x(201) }, entry: "name: must be at most 200 characters" },

  { what: "modelName of the wrong type", fields: { modelName: ["mock/echo"] }, entry: "modelName: must be string" },
  {
    what: "modelName without a provider",
    fields: { modelName: "echo" },
    entry: "modelName: must match the pattern ^[a-z][a-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._:@/-]*$",
  },
  { what: "modelName too long", fields: { modelName: `mock/${x(196)}` }, entry: "modelName: must be at most 200 characters" },
  { what: "modelName with an unknown provider", fields: { modelName: "acme/gpt-4o" }, entry: "modelName: provider must be one of: anthropic, mock, openai" },

  { what: "systemPrompt of the wrong type", fields: { systemPrompt: { text: "hi" } }, entry: "systemPrompt: must be string" },
  { what: "systemPrompt too long", fields: { systemPrompt: x(100_001) }, entry: "systemPrompt: must be at most 100000 characters" },

  { what: "skills of the wrong type", fields: { skills: "refunds" }, entry: "skills: must be array" },
  { what: "too many skills", fields: { skills: times(101, (i) => ({ name: `s${i}`, content: "c" })) }, entry: "skills: must have at most 100 items" },
  { what: "a skill that is not an object", fields: { skills: ["refunds"] }, entry: "skills[0]: must be object" },
  { what: "a skill without a name", fields: { skills: [{ content: "c" }] }, entry: "skills[0].name: is required" },
  { what: "a skill with an empty name", fields: { skills: [{ name: "", content: "c" }] }, entry: "skills[0].name: must not be empty" },
  { what: "a skill name too long", fields: { skills: [{ name: x(201), content: "c" }] }, entry: "skills[0].name: must be at most 200 characters" },
  { what: "a skill name of the wrong type", fields: { skills: [{ name: 1, content: "c" }] }, entry: "skills[0].name: must be string" },
  { what: "a skill without content", fields: { skills: [{ name: "s" }] }, entry: "skills[0].content: is required" },
  { what: "a skill with empty content", fields: { skills: [{ name: "s", content: "" }] }, entry: "skills[0].content: must not be empty" },
  { what: "a skill content too long", fields: { skills: [{ name: "s", content: x(100_001) }] }, entry: "skills[0].content: must be at most 100000 characters" },
  { what: "a skill content of the wrong type", fields: { skills: [{ name: "s", content: false }] }, entry: "skills[0].content: must be string" },
  { what: "a skill with an unknown property", fields: { skills: [{ name: "s", content: "c", version: 2 }] }, entry: "skills[0].version: is not allowed" },
  {
    what: "two skills with one name",
    fields: {
      skills: [
        { name: "s", content: "a" },
        { name: "s", content: "b" },
      ],
    },
    entry: "skills[1].name: must be unique",
  },

  { what: "tools of the wrong type", fields: { tools: {} }, entry: "tools: must be array" },
  { what: "too many tools", fields: { tools: times(101, (i) => custom({ name: `t${i}` })) }, entry: "tools: must have at most 100 items" },
  { what: "a tool that is not an object", fields: { tools: ["web"] }, entry: "tools[0]: must be object" },
  { what: "a tool without a type", fields: tool({ name: "web" }), entry: "tools[0].type: is required" },
  { what: "a tool of an unknown type", fields: tool({ type: "shell" }), entry: "tools[0].type: must be one of: agent_toolset, mcp_toolset, custom_tool" },

  { what: "agent_toolset defaultConfig of the wrong type", fields: toolset({ defaultConfig: true }), entry: "tools[0].defaultConfig: must be object" },
  {
    what: "agent_toolset defaultConfig.enabled of the wrong type",
    fields: toolset({ defaultConfig: { enabled: "yes" } }),
    entry: "tools[0].defaultConfig.enabled: must be boolean",
  },
  {
    what: "agent_toolset with an unknown policy",
    fields: toolset({ defaultConfig: { permissionPolicy: { type: "sometimes" } } }),
    entry: `tools[0].defaultConfig.permissionPolicy.type: ${POLICY_ENUM}`,
  },
  {
    what: "agent_toolset policy without a type",
    fields: toolset({ defaultConfig: { permissionPolicy: {} } }),
    entry: "tools[0].defaultConfig.permissionPolicy.type: is required",
  },
  {
    what: "agent_toolset defaultConfig with an unknown property",
    fields: toolset({ defaultConfig: { enabled: true, mode: "x" } }),
    entry: "tools[0].defaultConfig.mode: is not allowed",
  },
  { what: "agent_toolset configs of the wrong type", fields: toolset({ configs: {} }), entry: "tools[0].configs: must be array" },
  {
    what: "agent_toolset with too many configs",
    fields: toolset({ configs: times(12, () => ({ name: "web" })) }),
    entry: "tools[0].configs: must have at most 11 items",
  },
  {
    what: "agent_toolset config naming no built-in toolset",
    fields: toolset({ configs: [{ name: "browser" }] }),
    entry: `tools[0].configs[0].name: ${TOOLSET_NAMES}`,
  },
  { what: "agent_toolset config without a name", fields: toolset({ configs: [{ enabled: false }] }), entry: "tools[0].configs[0].name: is required" },
  {
    what: "agent_toolset config enabled of the wrong type",
    fields: toolset({ configs: [{ name: "web", enabled: "no" }] }),
    entry: "tools[0].configs[0].enabled: must be boolean",
  },
  {
    what: "agent_toolset config with an unknown policy",
    fields: toolset({ configs: [{ name: "web", permissionPolicy: { type: "ask" } }] }),
    entry: `tools[0].configs[0].permissionPolicy.type: ${POLICY_ENUM}`,
  },
  {
    what: "agent_toolset with one toolset configured twice",
    fields: toolset({ configs: [{ name: "web" }, { name: "web" }] }),
    entry: "tools[0].configs[1].name: must be unique",
  },
  { what: "agent_toolset with an unknown property", fields: toolset({ mcpServerName: "docs" }), entry: "tools[0].mcpServerName: is not allowed" },
  { what: "two agent_toolset entries", fields: { tools: [{ type: "agent_toolset" }, { type: "agent_toolset" }] }, entry: "tools[1].type: must be unique" },

  { what: "mcp_toolset without mcpServerName", fields: tool({ type: "mcp_toolset" }), entry: "tools[0].mcpServerName: is required" },
  { what: "mcp_toolset with an empty mcpServerName", fields: mcp({ mcpServerName: "" }), entry: "tools[0].mcpServerName: must not be empty" },
  { what: "mcp_toolset mcpServerName too long", fields: mcp({ mcpServerName: x(101) }), entry: "tools[0].mcpServerName: must be at most 100 characters" },
  { what: "mcp_toolset mcpServerName of the wrong type", fields: mcp({ mcpServerName: 7 }), entry: "tools[0].mcpServerName: must be string" },
  { what: "mcp_toolset resources of the wrong type", fields: mcp({ resources: "yes" }), entry: "tools[0].resources: must be boolean" },
  { what: "mcp_toolset prompts of the wrong type", fields: mcp({ prompts: 1 }), entry: "tools[0].prompts: must be boolean" },
  {
    what: "mcp_toolset defaultConfig with an unknown policy",
    fields: mcp({ defaultConfig: { permissionPolicy: { type: "yes" } } }),
    entry: `tools[0].defaultConfig.permissionPolicy.type: ${POLICY_ENUM}`,
  },
  {
    what: "mcp_toolset with too many configs",
    fields: mcp({ configs: times(201, (i) => ({ name: `t${i}` })) }),
    entry: "tools[0].configs: must have at most 200 items",
  },
  { what: "mcp_toolset config name too long", fields: mcp({ configs: [{ name: x(129) }] }), entry: "tools[0].configs[0].name: must be at most 128 characters" },
  { what: "mcp_toolset config without a name", fields: mcp({ configs: [{ enabled: true }] }), entry: "tools[0].configs[0].name: is required" },
  {
    what: "mcp_toolset config with an unknown policy",
    fields: mcp({ configs: [{ name: "search", permissionPolicy: { type: "never" } }] }),
    entry: `tools[0].configs[0].permissionPolicy.type: ${POLICY_ENUM}`,
  },
  {
    what: "mcp_toolset config with an unknown property",
    fields: mcp({ configs: [{ name: "search", timeout: 5 }] }),
    entry: "tools[0].configs[0].timeout: is not allowed",
  },
  {
    what: "mcp_toolset with one tool configured twice",
    fields: mcp({ configs: [{ name: "search" }, { name: "search" }] }),
    entry: "tools[0].configs[1].name: must be unique",
  },
  {
    what: "two mcp_toolsets for one server",
    fields: {
      tools: [
        { type: "mcp_toolset", mcpServerName: "docs" },
        { type: "mcp_toolset", mcpServerName: "docs" },
      ],
      mcpServers: [docs],
    },
    entry: "tools[1].mcpServerName: must be unique",
  },

  { what: "custom_tool without a name", fields: tool(without(custom(), "name")), entry: "tools[0].name: is required" },
  { what: "custom_tool name with a space", fields: tool(custom({ name: "look up" })), entry: "tools[0].name: must match the pattern ^[A-Za-z0-9_-]{1,64}$" },
  { what: "custom_tool name too long", fields: tool(custom({ name: x(65) })), entry: "tools[0].name: must match the pattern ^[A-Za-z0-9_-]{1,64}$" },
  { what: "custom_tool name of the wrong type", fields: tool(custom({ name: 3 })), entry: "tools[0].name: must be string" },
  {
    what: "custom_tool named like a built-in tool",
    fields: tool(custom({ name: "terminal" })),
    entry: "tools[0].name: must not be the name of a built-in tool",
  },
  { what: "custom_tool without a description", fields: tool(without(custom(), "description")), entry: "tools[0].description: is required" },
  { what: "custom_tool with an empty description", fields: tool(custom({ description: "" })), entry: "tools[0].description: must not be empty" },
  {
    what: "custom_tool description too long",
    fields: tool(custom({ description: x(10_001) })),
    entry: "tools[0].description: must be at most 10000 characters",
  },
  { what: "custom_tool without input_schema", fields: tool(without(custom(), "input_schema")), entry: "tools[0].input_schema: is required" },
  { what: "custom_tool input_schema of the wrong type", fields: tool(custom({ input_schema: "object" })), entry: "tools[0].input_schema: must be object" },
  {
    what: "custom_tool input_schema without a type",
    fields: tool(custom({ input_schema: { properties: {} } })),
    entry: "tools[0].input_schema.type: is required",
  },
  {
    what: "custom_tool input_schema that is not object-shaped",
    fields: tool(custom({ input_schema: { type: "string" } })),
    entry: "tools[0].input_schema.type: must be object",
  },
  {
    what: "custom_tool input_schema over 64 KB",
    fields: tool(custom({ input_schema: hugeInputSchema })),
    entry: "tools[0].input_schema: must be at most 65536 bytes as JSON",
  },
  { what: "custom_tool enabled of the wrong type", fields: tool(custom({ enabled: "true" })), entry: "tools[0].enabled: must be boolean" },
  {
    what: "custom_tool with an unknown policy",
    fields: tool(custom({ permissionPolicy: { type: "maybe" } })),
    entry: `tools[0].permissionPolicy.type: ${POLICY_ENUM}`,
  },
  { what: "custom_tool with an unknown property", fields: tool(custom({ handler: "x" })), entry: "tools[0].handler: is not allowed" },
  { what: "two custom tools with one name", fields: { tools: [custom(), custom({ description: "again" })] }, entry: "tools[1].name: must be unique" },
];

/** A required field of the create body, left out. */
export const requiredCases: Case[] = ["name", "modelName", "systemPrompt", "skills", "tools"].map((field) => ({
  what: `missing ${field}`,
  fields: { [field]: undefined },
  entry: `${field}: is required`,
}));

/** An MCP toolset must name a server of the same body (create and full replace see the whole body). */
export const referenceCases: Case[] = [
  {
    what: "an mcp_toolset naming no configured server",
    fields: { tools: [{ type: "mcp_toolset", mcpServerName: "nowhere" }], mcpServers: [docs] },
    entry: "tools[0].mcpServerName: must equal the name of an entry in mcpServers",
  },
  {
    what: "a role's mcp_toolset naming no configured server",
    fields: { roles: [{ name: "r", tools: [{ type: "mcp_toolset", mcpServerName: "nowhere" }] }] },
    entry: "roles[0].tools[0].mcpServerName: must equal the name of an entry in mcpServers",
  },
];

export const rateLimitValueCases = (root: string): Case[] => [
  { what: "conversationsPerMinute below 1", fields: { conversationsPerMinute: 0 }, entry: `${root}conversationsPerMinute: must be >= 1` },
  { what: "conversationsPerMinute above 300", fields: { conversationsPerMinute: 301 }, entry: `${root}conversationsPerMinute: must be <= 300` },
  { what: "conversationsPerMinute not an integer", fields: { conversationsPerMinute: 1.5 }, entry: `${root}conversationsPerMinute: must be integer` },
  { what: "conversationsPerMinute a string", fields: { conversationsPerMinute: "5" }, entry: `${root}conversationsPerMinute: must be integer` },
  { what: "messagesPerMinute below 1", fields: { messagesPerMinute: 0 }, entry: `${root}messagesPerMinute: must be >= 1` },
  { what: "messagesPerMinute above 1000", fields: { messagesPerMinute: 1001 }, entry: `${root}messagesPerMinute: must be <= 1000` },
  { what: "messagesPerMinute not an integer", fields: { messagesPerMinute: 2.5 }, entry: `${root}messagesPerMinute: must be integer` },
  { what: "an unknown rate limit", fields: { burst: 10 }, entry: `${root}burst: is not allowed` },
];
