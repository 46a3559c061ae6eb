/**
 * The agent a deployment runs on, derived from its settings (pure). The deployment's features become
 * tool configuration of the core: `memory` switches the memory toolset, `steering` off lets every tool
 * run without asking (on: the core's defaults, where tools ask). An MCP server's `tools` allowlist
 * disables the server's other tools.
 */
import type { AgentCreateBody } from "../../agents/domain/agent-config.js";
import type { DeploymentSettings } from "./deployments.js";

type Tools = AgentCreateBody["tools"];

export function agentBodyOf(deploymentId: string, settings: DeploymentSettings): AgentCreateBody {
  const allow = settings.features.steering ? {} : { permissionPolicy: { type: "always_allow" as const } };
  const tools: Tools = [
    {
      type: "agent_toolset",
      defaultConfig: { enabled: true, ...allow },
      configs: settings.features.memory ? [] : [{ name: "memory", enabled: false }],
    },
    ...settings.mcpServers.map((server) => ({
      type: "mcp_toolset" as const,
      mcpServerName: server.name,
      defaultConfig: { enabled: server.tools === undefined, ...allow },
      configs: (server.tools ?? []).map((name) => ({ name, enabled: true })),
    })),
  ];
  return {
    name: settings.name,
    modelName: settings.model,
    systemPrompt: settings.systemPrompt,
    skills: settings.skills.map((s) => ({ name: s.name, content: s.content })),
    tools,
    mcpServers: settings.mcpServers.map((s) => ({ type: "url" as const, name: s.name, url: s.url })),
    metadata: { deploymentId },
  };
}
