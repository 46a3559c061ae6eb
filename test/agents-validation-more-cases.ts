/** Invalid agent bodies, second part: roles, MCP servers and metadata (each case one bad field, and the entry it must give). */
import { x, times, docs, custom, role, serverItem, without, METADATA_VALUE, type Case } from "./agents-validation-cases.js";

export const roleServerMetadataCases: Case[] = [
  { what: "roles of the wrong type", fields: { roles: "admin" }, entry: "roles: must be array" },
  { what: "too many roles", fields: { roles: times(51, (i) => ({ name: `r${i}`, tools: [] })) }, entry: "roles: must have at most 50 items" },
  { what: "a role without a name", fields: { roles: [{ tools: [] }] }, entry: "roles[0].name: is required" },
  { what: "a role with an empty name", fields: role({ name: "" }), entry: "roles[0].name: must not be empty" },
  { what: "a role name too long", fields: role({ name: x(201) }), entry: "roles[0].name: must be at most 200 characters" },
  { what: "a role description of the wrong type", fields: role({ description: 5 }), entry: "roles[0].description: must be string" },
  { what: "a role description too long", fields: role({ description: x(2001) }), entry: "roles[0].description: must be at most 2000 characters" },
  { what: "a role without tools", fields: { roles: [{ name: "r" }] }, entry: "roles[0].tools: is required" },
  {
    what: "a role with a tool of an unknown type",
    fields: role({ tools: [{ type: "shell" }] }),
    entry: "roles[0].tools[0].type: must be one of: agent_toolset, mcp_toolset, custom_tool",
  },
  { what: "a role with two custom tools of one name", fields: role({ tools: [custom(), custom()] }), entry: "roles[0].tools[1].name: must be unique" },
  { what: "a role with an unknown property", fields: role({ prompt: "x" }), entry: "roles[0].prompt: is not allowed" },
  {
    what: "two roles with one name",
    fields: {
      roles: [
        { name: "r", tools: [] },
        { name: "r", tools: [] },
      ],
    },
    entry: "roles[1].name: must be unique",
  },

  { what: "mcpServers of the wrong type", fields: { mcpServers: {} }, entry: "mcpServers: must be array" },
  { what: "too many MCP servers", fields: { mcpServers: times(51, (i) => ({ ...docs, name: `s${i}` })) }, entry: "mcpServers: must have at most 50 items" },
  { what: "an MCP server without a type", fields: { mcpServers: [without(docs, "type")] }, entry: "mcpServers[0].type: is required" },
  { what: "an MCP server of another type", fields: serverItem({ type: "stdio" }), entry: "mcpServers[0].type: must be url" },
  { what: "an MCP server without a name", fields: { mcpServers: [without(docs, "name")] }, entry: "mcpServers[0].name: is required" },
  {
    what: "an MCP server name with bad characters",
    fields: serverItem({ name: "my docs!" }),
    entry: "mcpServers[0].name: must match the pattern ^[A-Za-z0-9_-]{1,100}$",
  },
  { what: "an MCP server name too long", fields: serverItem({ name: x(101) }), entry: "mcpServers[0].name: must match the pattern ^[A-Za-z0-9_-]{1,100}$" },
  { what: "an MCP server without a url", fields: { mcpServers: [without(docs, "url")] }, entry: "mcpServers[0].url: is required" },
  { what: "an MCP server url that is no URI", fields: serverItem({ url: "not a url" }), entry: "mcpServers[0].url: must be a valid uri" },
  {
    what: "an MCP server url that is not http(s)",
    fields: serverItem({ url: "ftp://docs.example.com/mcp" }),
    entry: "mcpServers[0].url: must match the pattern ^https?://",
  },
  {
    what: "an MCP server url with credentials in it",
    fields: serverItem({ url: "https://user:pass@docs.example.com/mcp" }),
    entry: "mcpServers[0].url: must not contain credentials",
  },
  {
    what: "an MCP server url too long",
    fields: serverItem({ url: `https://docs.example.com/${x(2030)}` }),
    entry: "mcpServers[0].url: must be at most 2048 characters",
  },
  { what: "an MCP server with an unknown property", fields: serverItem({ headers: {} }), entry: "mcpServers[0].headers: is not allowed" },
  {
    what: "two MCP servers with one name",
    fields: { mcpServers: [docs, { ...docs, url: "https://other.example.com" }] },
    entry: "mcpServers[1].name: must be unique",
  },

  { what: "metadata of the wrong type", fields: { metadata: ["a"] }, entry: "metadata: must be object" },
  {
    what: "metadata with too many keys",
    fields: { metadata: Object.fromEntries(times(51, (i) => [`k${i}`, i])) },
    entry: "metadata: must have at most 50 properties",
  },
  { what: "a metadata key too long", fields: { metadata: { [x(65)]: 1 } }, entry: "metadata: has a property name that is empty or longer than 64 characters" },
  { what: "an empty metadata key", fields: { metadata: { "": 1 } }, entry: "metadata: has a property name that is empty or longer than 64 characters" },
  { what: "a metadata string too long", fields: { metadata: { note: x(513) } }, entry: METADATA_VALUE },
  { what: "a metadata value that is an object", fields: { metadata: { nested: { a: 1 } } }, entry: METADATA_VALUE },
  { what: "a metadata value that is an array", fields: { metadata: { list: [1] } }, entry: METADATA_VALUE },

  { what: "an unknown property", fields: { temperature: 0.2 }, entry: "temperature: is not allowed" },
  { what: "an unknown property whose name is not field-like", fields: { "x-custom-1": 1 }, entry: "body: must not have unknown properties" },
];
