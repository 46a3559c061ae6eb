/**
 * What preparing for an agent's next session covers, read from its version: the MCP servers its turns
 * will list (those an `mcp_toolset` of the top-level tools or of any role names: a prewarm does not
 * know the session's role), whether a session's tools use its workspace, and the `reason` a prewarm
 * answers with when a server's credential keeps it from being prepared. Pure.
 */
import type { AgentConfig, McpToolset, ToolConfig } from "../../agents/domain/agent-config.js";
import type { McpConnectionStatus, McpServerRef, McpServerStatus } from "../../vaults/domain/mcp-connection-status.js";
import { visibleBuiltinTools } from "../../worker/domain/tool-permissions.js";
import { TOOLSETS } from "../../agent-tools/domain/toolsets.js";

/** The built-in tools that work in the session's workspace. */
const WORKSPACE_TOOLS: ReadonlySet<string> = new Set([...TOOLSETS.file, ...TOOLSETS.terminal, ...TOOLSETS.code_execution]);

/** Servers named in a reason at most; the rest are counted. */
const NAMED = 5;

const WHY: Partial<Record<McpConnectionStatus, string>> = {
  conflict: "several credentials of the agent's vaults match it; keep one",
  reconnect: "its credential needs to be authorized again",
  unavailable: "its credential cannot be decrypted with the keys this service holds",
};

/** The servers some toolset of the version names, in the version's order. */
export function serversToPrepare(config: Pick<AgentConfig, "tools" | "roles" | "mcpServers">): McpServerRef[] {
  const named = new Set(
    [config.tools, ...config.roles.map((r) => r.tools)]
      .flat()
      .filter((t): t is McpToolset => t.type === "mcp_toolset")
      .map((t) => t.mcpServerName),
  );
  return config.mcpServers.filter((s) => named.has(s.name)).map((s) => ({ name: s.name, url: s.url }));
}

/** Whether tools governed by `governing` work in the session's workspace (files, terminal, code). */
export function usesWorkspace(governing: ToolConfig[]): boolean {
  return visibleBuiltinTools(governing).some((t) => WORKSPACE_TOOLS.has(t));
}

/**
 * Why some of `prepared` cannot be prepared, from their connection statuses; null when nothing stands
 * in the way (a `public` server may still refuse: that shows when it is listed, not here).
 */
export function unpreparedReason(statuses: readonly McpServerStatus[], prepared: readonly McpServerRef[]): string | null {
  const names = new Set(prepared.map((s) => s.name));
  const problems = statuses.flatMap((s) => {
    const why = names.has(s.serverName) ? WHY[s.status] : undefined;
    return why ? [`the MCP server ${s.serverName} cannot be prepared: ${why}`] : [];
  });
  if (problems.length === 0) return null;
  const more = problems.length - NAMED;
  return problems.slice(0, NAMED).join("; ") + (more > 0 ? `; and ${more} more servers` : "");
}
