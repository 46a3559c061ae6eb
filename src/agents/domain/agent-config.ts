/**
 * The versioned configuration of an agent: its shape, the defaults filled in at write time, the rules a
 * JSON Schema cannot say, and the PATCH upsert. Pure functions, no I/O.
 */
import { serverUrlProblem } from "../../vaults/domain/mcp-server-url.js";
import type { FromSchemas } from "../../../schemas/index.js";
import { agentCreateSchema } from "../../../schemas/agent-create.js";
import type { agentPatchSchema } from "../../../schemas/agent-patch.js";
import type { callableAgentSchema } from "../../../schemas/callable-agent.js";
import type { mcpServerSchema } from "../../../schemas/mcp-server.js";
import type { metadataSchema } from "../../../schemas/metadata.js";
import type { permissionPolicySchema } from "../../../schemas/permission-policy.js";
import type { rateLimitsSchema } from "../../../schemas/rate-limits.js";
import type { roleSchema } from "../../../schemas/role.js";
import type { skillSchema } from "../../../schemas/skill.js";
import type { toolSchema } from "../../../schemas/tool.js";
import { toolsSchema } from "../../../schemas/tools.js";
import { BUILTIN_TOOL_NAMES, isDelegationTool, type ToolsetName } from "../../agent-tools/domain/toolsets.js";

/** Request shapes, as the schemas accept them (optional fields may be absent). */
export type AgentCreateBody = FromSchemas<typeof agentCreateSchema>;
export type AgentPatchBody = FromSchemas<typeof agentPatchSchema>;
export type ToolInput = FromSchemas<typeof toolSchema>;
export type RoleInput = FromSchemas<typeof roleSchema>;
export type Skill = FromSchemas<typeof skillSchema>;
export type McpServer = FromSchemas<typeof mcpServerSchema>;
export type CallableAgent = FromSchemas<typeof callableAgentSchema>;
export type Metadata = FromSchemas<typeof metadataSchema>;
export type PermissionPolicy = FromSchemas<typeof permissionPolicySchema>;
export type PolicyType = PermissionPolicy["type"];

/* The stored form of a version: every default written out, so reads need no knowledge of them. */
export interface DefaultConfig {
  enabled: boolean;
  permissionPolicy: PermissionPolicy;
}
export interface ToolOverride<N extends string = string> {
  name: N;
  enabled?: boolean;
  permissionPolicy?: PermissionPolicy;
}
export interface AgentToolset {
  type: "agent_toolset";
  defaultConfig: DefaultConfig;
  configs: ToolOverride<ToolsetName>[];
}
export interface McpToolset {
  type: "mcp_toolset";
  mcpServerName: string;
  defaultConfig: DefaultConfig;
  configs: ToolOverride[];
  resources: boolean;
  prompts: boolean;
}
export interface CustomTool {
  type: "custom_tool";
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  enabled: boolean;
  permissionPolicy: PermissionPolicy;
}
export type ToolConfig = AgentToolset | McpToolset | CustomTool;

export interface Role {
  name: string;
  description?: string;
  tools: ToolConfig[];
}

export interface AgentConfig {
  name: string;
  modelName: string;
  systemPrompt: string;
  skills: Skill[];
  tools: ToolConfig[];
  roles: Role[];
  mcpServers: McpServer[];
  /** Agents this version may delegate to; absent on versions published before delegation existed (none). */
  callableAgents?: CallableAgent[];
  metadata: Metadata;
}

/** The agents a version may delegate to. */
export const callableAgentsOf = (config: Pick<AgentConfig, "callableAgents">): CallableAgent[] => config.callableAgents ?? [];

/** An agent's allowances, both set (the schema's fields, each optional in a body). */
export type RateLimits = Required<FromSchemas<typeof rateLimitsSchema>>;
export const DEFAULT_RATE_LIMITS: RateLimits = { conversationsPerMinute: 5, messagesPerMinute: 100 };

const ALWAYS_ASK: PermissionPolicy = { type: "always_ask" };
const MAX_INPUT_SCHEMA_BYTES = 64 * 1024;

function defaultConfig(given: Partial<DefaultConfig> | undefined): DefaultConfig {
  return { enabled: given?.enabled ?? true, permissionPolicy: given?.permissionPolicy ?? ALWAYS_ASK };
}

/** The stored form of a tool entry: every default written out, so reads need no knowledge of them. */
export function normalizeTool(tool: ToolInput): ToolConfig {
  switch (tool.type) {
    case "agent_toolset":
      return { type: "agent_toolset", defaultConfig: defaultConfig(tool.defaultConfig), configs: tool.configs ?? [] };
    case "mcp_toolset":
      return {
        type: "mcp_toolset",
        mcpServerName: tool.mcpServerName,
        defaultConfig: defaultConfig(tool.defaultConfig),
        configs: tool.configs ?? [],
        resources: tool.resources ?? false,
        prompts: tool.prompts ?? false,
      };
    case "custom_tool":
      return {
        type: "custom_tool",
        name: tool.name,
        description: tool.description,
        input_schema: tool.input_schema,
        enabled: tool.enabled ?? true,
        permissionPolicy: tool.permissionPolicy ?? ALWAYS_ASK,
      };
  }
}

/** `tools: []` on create or full replace means the built-in toolset, enabled, asking before each use. */
function topLevelTools(tools: ToolInput[]): ToolConfig[] {
  return tools.length === 0 ? [normalizeTool({ type: "agent_toolset" })] : tools.map(normalizeTool);
}

function normalizeRole(role: RoleInput): Role {
  const out: Role = { name: role.name, tools: role.tools.map(normalizeTool) };
  if (role.description !== undefined) out.description = role.description;
  return out;
}

export function configFromCreateBody(body: AgentCreateBody): AgentConfig {
  return {
    name: body.name,
    modelName: body.modelName,
    systemPrompt: body.systemPrompt,
    skills: body.skills,
    tools: topLevelTools(body.tools),
    roles: (body.roles ?? []).map(normalizeRole),
    mcpServers: body.mcpServers ?? [],
    callableAgents: body.callableAgents ?? [],
    metadata: body.metadata ?? {},
  };
}

export function rateLimitsFrom(given: Partial<RateLimits> | undefined, base: RateLimits = DEFAULT_RATE_LIMITS): RateLimits {
  return {
    conversationsPerMinute: given?.conversationsPerMinute ?? base.conversationsPerMinute,
    messagesPerMinute: given?.messagesPerMinute ?? base.messagesPerMinute,
  };
}

/** The identity PATCH upserts tools by: type, plus the name of a custom tool or the server of an MCP toolset. */
export function toolIdentity(tool: ToolConfig | ToolInput): string {
  switch (tool.type) {
    case "agent_toolset":
      return "agent_toolset";
    case "mcp_toolset":
      return `mcp_toolset:${tool.mcpServerName}`;
    case "custom_tool":
      return `custom_tool:${tool.name}`;
  }
}

/** Replaces entries whose identity matches, appends new identities, keeps the rest in place. */
function upsert<T>(current: T[], supplied: T[] | undefined, identity: (item: T) => string): T[] {
  if (!supplied || supplied.length === 0) return current;
  const out = [...current];
  for (const item of supplied) {
    const at = out.findIndex((existing) => identity(existing) === identity(item));
    if (at >= 0) out[at] = item;
    else out.push(item);
  }
  return out;
}

/** PATCH rules 2–4: omitted configuration is kept; collections are upserted by identity. */
export function applyPatch(current: AgentConfig, patch: AgentPatchBody): AgentConfig {
  return {
    name: patch.name ?? current.name,
    modelName: patch.modelName ?? current.modelName,
    systemPrompt: patch.systemPrompt ?? current.systemPrompt,
    skills: upsert(current.skills, patch.skills, (s) => s.name),
    tools: upsert(current.tools, patch.tools?.map(normalizeTool), toolIdentity),
    roles: upsert(current.roles, patch.roles?.map(normalizeRole), (r) => r.name),
    mcpServers: upsert(current.mcpServers, patch.mcpServers, (m) => m.name),
    callableAgents: upsert(callableAgentsOf(current), patch.callableAgents, (c) => c.agentId),
    metadata: patch.metadata ?? current.metadata,
  };
}

/**
 * The most entries one version may hold: what the create body's schema allows. A PATCH appends, so the
 * merged result is checked too: every version stays a valid full-replace body.
 */
export const VERSION_MAX_ITEMS = {
  skills: agentCreateSchema.properties.skills.maxItems,
  tools: toolsSchema.maxItems,
  roles: agentCreateSchema.properties.roles.maxItems,
  mcpServers: agentCreateSchema.properties.mcpServers.maxItems,
  callableAgents: agentCreateSchema.properties.callableAgents.maxItems,
} as const;

export function versionLimitProblems(config: AgentConfig): string[] {
  return (Object.keys(VERSION_MAX_ITEMS) as (keyof typeof VERSION_MAX_ITEMS)[])
    .filter((field) => (config[field] ?? []).length > VERSION_MAX_ITEMS[field])
    .map((field) => `${field}: must have at most ${VERSION_MAX_ITEMS[field]} items`);
}

function toolProblems(tools: ToolInput[], base: string): string[] {
  const problems: string[] = [];
  tools.forEach((tool, i) => {
    const at = `${base}[${i}]`;
    if (tool.type !== "custom_tool") return;
    if (BUILTIN_TOOL_NAMES.has(tool.name) || isDelegationTool(tool.name)) problems.push(`${at}.name: must not be the name of a built-in tool`);
    if (Buffer.byteLength(JSON.stringify(tool.input_schema)) > MAX_INPUT_SCHEMA_BYTES) {
      problems.push(`${at}.input_schema: must be at most ${MAX_INPUT_SCHEMA_BYTES} bytes as JSON`);
    }
  });
  return problems;
}

/** Rules of one submitted body a schema cannot say: custom tools' names and input schema sizes. */
export function bodyProblems(body: AgentPatchBody): string[] {
  const problems: string[] = [];
  problems.push(...toolProblems(body.tools ?? [], "tools"));
  (body.roles ?? []).forEach((role, r) => problems.push(...toolProblems(role.tools, `roles[${r}].tools`)));
  // The schema checks the shape; this, the rule credentials match by (no userinfo: a raw credential never sits in a server URL).
  (body.mcpServers ?? []).forEach((server, i) => {
    const problem = serverUrlProblem(server.url);
    if (problem) problems.push(`mcpServers[${i}].url: ${problem}`);
  });
  return problems;
}

/**
 * Every submitted MCP toolset, top-level or in a role, must name one of `servers`: the body's own for
 * create and replace, the merged result's for a PATCH. Entries a PATCH leaves alone need no check, as a
 * PATCH never removes or renames a server. Paths are those of the submitted body.
 */
export function referenceProblems(body: Pick<AgentPatchBody, "tools" | "roles">, servers: McpServer[]): string[] {
  const names = new Set(servers.map((m) => m.name));
  const problems: string[] = [];
  const check = (tools: ToolInput[], base: string) =>
    tools.forEach((t, i) => {
      if (t.type === "mcp_toolset" && !names.has(t.mcpServerName)) {
        problems.push(`${base}[${i}].mcpServerName: must equal the name of an entry in mcpServers`);
      }
    });
  check(body.tools ?? [], "tools");
  (body.roles ?? []).forEach((role, r) => check(role.tools, `roles[${r}].tools`));
  return problems;
}
