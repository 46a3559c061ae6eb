/**
 * The one place that resolves a tool call's permission. Pure: the caller passes the configuration,
 * the session's role, `yoloMode` as read at this decision, and the grants remembered so far.
 *
 * Resolution: the session role's `tools` replace the version's top-level `tools` when the session has
 * a role. A built-in tool takes its toolset's override, else the `agent_toolset` default. An MCP tool
 * (`mcp__<server>__<tool>`, the longest configured server name matching) takes its per-tool override,
 * else its `mcp_toolset` default. A custom tool
 * has its own `enabled` and policy. `enabled: false` and `always_deny` deny before running, with no
 * approval request; `always_ask` asks unless `yoloMode` is on or an earlier approval granted it for
 * the session or always.
 */
import { BUILTIN_TOOL_NAMES, TOOLSETS, isDelegationTool, toolsetOf, type ToolsetName } from "../../agent-tools/domain/toolsets.js";
import type { AgentConfig, CustomTool, McpToolset, PolicyType, ToolConfig } from "../../agents/domain/agent-config.js";
import { mcpToolEnabled, mcpToolOf } from "../../vaults/domain/mcp-tools.js";

export type ToolKind = "builtin" | "mcp" | "custom";

export interface ResolvedTool {
  name: string;
  kind: ToolKind;
  enabled: boolean;
  policy: PolicyType;
  toolset?: ToolsetName;
  server?: string;
  custom?: CustomTool;
}

export type Decision = { action: "allow" } | { action: "ask" } | { action: "deny"; reason: string };

/** Whether a name has the shape of an MCP tool's, configured or not (an unknown one is still told apart in events). */
export const looksLikeMcpTool = (name: string) => /^mcp__.+__.+$/.test(name);

/** The tools governing a session: its role's, or the version's top-level ones. */
export function governingTools(config: Pick<AgentConfig, "tools" | "roles">, role: string | null): ToolConfig[] {
  if (role === null) return config.tools;
  return config.roles.find((r) => r.name === role)?.tools ?? config.tools;
}

/** How a tool name resolves under `tools`, or null when no entry makes it available. */
export function resolveTool(tools: ToolConfig[], name: string): ResolvedTool | null {
  if (BUILTIN_TOOL_NAMES.has(name) || isDelegationTool(name)) {
    const set = tools.find((t) => t.type === "agent_toolset");
    if (!set || set.type !== "agent_toolset") return null;
    const toolset = toolsetOf(name)!;
    const override = set.configs.find((c) => c.name === toolset);
    return {
      name,
      kind: "builtin",
      toolset,
      enabled: override?.enabled ?? set.defaultConfig.enabled,
      policy: (override?.permissionPolicy ?? set.defaultConfig.permissionPolicy).type,
    };
  }
  const mcp = mcpToolOf(
    tools.filter((t): t is McpToolset => t.type === "mcp_toolset"),
    name,
  );
  if (mcp) {
    const override = mcp.toolset.configs.find((c) => c.name === mcp.tool);
    return {
      name,
      kind: "mcp",
      server: mcp.toolset.mcpServerName,
      enabled: mcpToolEnabled(mcp.toolset, mcp.tool),
      policy: (override?.permissionPolicy ?? mcp.toolset.defaultConfig.permissionPolicy).type,
    };
  }
  const custom = tools.find((t): t is CustomTool => t.type === "custom_tool" && t.name === name);
  if (!custom) return null;
  return { name, kind: "custom", enabled: custom.enabled, policy: custom.permissionPolicy.type, custom };
}

export interface Grants {
  /** Tools approved with scope `session` in this session. */
  session: ReadonlySet<string>;
  /** Tools approved with scope `always` for this agent and subject. */
  always: ReadonlySet<string>;
}

/**
 * The decision for one call. `clarify` asks the human a question itself, so it never needs an
 * approval to do so; it is still subject to `enabled` and `always_deny`.
 */
export function decide(resolved: ResolvedTool | null, name: string, yoloMode: boolean, grants: Grants): Decision {
  if (!resolved) return { action: "deny", reason: `no tool named ${name} is available to this agent` };
  if (!resolved.enabled) return { action: "deny", reason: `the tool ${name} is disabled` };
  if (resolved.policy === "always_deny") return { action: "deny", reason: `the policy of the tool ${name} denies it` };
  if (resolved.policy === "always_allow" || name === "clarify") return { action: "allow" };
  if (yoloMode || grants.session.has(name) || grants.always.has(name)) return { action: "allow" };
  return { action: "ask" };
}

/**
 * Whether a call would ask the human when neither yoloMode nor an `always` grant allows it: only then do
 * those two need reading.
 */
export function wouldAsk(tools: ToolConfig[], name: string, sessionGrants: ReadonlySet<string>): boolean {
  return decide(resolveTool(tools, name), name, false, { session: sessionGrants, always: new Set() }).action === "ask";
}

/** The built-in toolsets the model can see: the enabled ones (a disabled toolset is invisible). */
export function visibleToolsets(tools: ToolConfig[]): ToolsetName[] {
  const set = tools.find((t) => t.type === "agent_toolset");
  if (!set || set.type !== "agent_toolset") return [];
  return (Object.keys(TOOLSETS) as ToolsetName[]).filter((name) => set.configs.find((c) => c.name === name)?.enabled ?? set.defaultConfig.enabled);
}

/** Built-in tools of fixed names the model can see: those of enabled toolsets. */
export function visibleBuiltinTools(tools: ToolConfig[]): string[] {
  return visibleToolsets(tools).flatMap((name) => [...TOOLSETS[name]]);
}

/** Custom tools the model can see: the enabled ones. */
export function visibleCustomTools(tools: ToolConfig[]): CustomTool[] {
  return tools.filter((t): t is CustomTool => t.type === "custom_tool" && t.enabled);
}
