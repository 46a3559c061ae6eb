/**
 * How an MCP server's tools reach the model. Pure.
 *
 * A tool `t` of the server named `s` is offered as `mcp__s__t`, the convention MCP hosts share. A name
 * the model API would refuse (`^[A-Za-z0-9_-]{1,128}$`) is not offered. When the toolset enables
 * `resources` or `prompts`, the server's resources and prompts are reached through four tools of our
 * own under the same prefix (`list_resources`, `read_resource`, `list_prompts`, `get_prompt`): resources
 * and prompts are things the host reads, not calls, and a model reads through tools. They take the
 * toolset's permission policies like the server's tools (a per-tool override names them); a server
 * tool of the same name wins, as the server's own tools always reach the model unchanged.
 */
import type { McpToolset } from "../../agents/domain/agent-config.js";
import type { ToolSpec } from "../../providers/domain/model-types.js";

const NAME = /^[A-Za-z0-9_-]{1,128}$/;

export interface ListedMcpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type McpReadTool = "list_resources" | "read_resource" | "list_prompts" | "get_prompt";

const cursor = { cursor: { type: "string", description: "The nextCursor of the previous page, for the next one." } };

const READ_TOOLS: Record<McpReadTool, { needs: "resources" | "prompts"; description: string; inputSchema: Record<string, unknown> }> = {
  list_resources: {
    needs: "resources",
    description: "List the resources this MCP server offers (uri, name, description).",
    inputSchema: { type: "object", properties: cursor },
  },
  read_resource: {
    needs: "resources",
    description: "Read one resource of this MCP server by its uri.",
    inputSchema: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] },
  },
  list_prompts: {
    needs: "prompts",
    description: "List the prompt templates this MCP server offers, with their arguments.",
    inputSchema: { type: "object", properties: cursor },
  },
  get_prompt: {
    needs: "prompts",
    description: "Fill one prompt template of this MCP server with arguments and read its messages.",
    inputSchema: {
      type: "object",
      properties: { name: { type: "string" }, arguments: { type: "object", additionalProperties: { type: "string" } } },
      required: ["name"],
    },
  },
};

export const mcpToolName = (server: string, tool: string) => `mcp__${server}__${tool}`;

/** The toolset a model-facing name belongs to, and the tool's name on its server; the longest server name wins. */
export function mcpToolOf<T extends Pick<McpToolset, "mcpServerName">>(toolsets: readonly T[], name: string): { toolset: T; tool: string } | null {
  let found: { toolset: T; tool: string } | null = null;
  for (const toolset of toolsets) {
    const prefix = mcpToolName(toolset.mcpServerName, "");
    if (name.length > prefix.length && name.startsWith(prefix) && (!found || toolset.mcpServerName.length > found.toolset.mcpServerName.length)) {
      found = { toolset, tool: name.slice(prefix.length) };
    }
  }
  return found;
}

/** Whether a tool's override (or else the toolset's default) enables it. */
export function mcpToolEnabled(toolset: Pick<McpToolset, "defaultConfig" | "configs">, tool: string): boolean {
  return toolset.configs.find((c) => c.name === tool)?.enabled ?? toolset.defaultConfig.enabled;
}

/** The read tool a call names, when the toolset enables it and the server has no tool of that name. */
export function readToolOf(toolset: Pick<McpToolset, "resources" | "prompts">, tool: string, serverTools: readonly string[]): McpReadTool | null {
  if (!Object.hasOwn(READ_TOOLS, tool) || serverTools.includes(tool)) return null;
  const read = tool as McpReadTool;
  return toolset[READ_TOOLS[read].needs] ? read : null;
}

/**
 * The specs the model is offered for one server: its enabled tools with valid names, then the enabled
 * read tools; `skipped` names the server tools left out for their names: one the model API would
 * refuse, one the server lists twice, and one whose name routes to another of the `all` toolsets
 * (server `a`'s tool `b__c` and server `a__b`'s tool `c` are both `mcp__a__b__c`: it would run on `a__b`).
 */
export function offeredMcpTools(
  toolset: McpToolset,
  listed: readonly ListedMcpTool[],
  all: readonly McpToolset[] = [toolset],
): { specs: ToolSpec[]; skipped: string[] } {
  const specs: ToolSpec[] = [];
  const skipped: string[] = [];
  const serverTools = listed.map((t) => t.name);
  const offered = new Set<string>();
  const offer = (tool: string, description: string, inputSchema: Record<string, unknown>) => {
    const name = mcpToolName(toolset.mcpServerName, tool);
    if (!NAME.test(name) || offered.has(name) || mcpToolOf(all, name)?.toolset !== toolset) return skipped.push(tool);
    offered.add(name);
    if (mcpToolEnabled(toolset, tool)) specs.push({ name, description, input_schema: inputSchema });
  };
  for (const t of listed) offer(t.name, t.description, t.inputSchema);
  for (const [tool, read] of Object.entries(READ_TOOLS)) {
    if (readToolOf(toolset, tool, serverTools)) offer(tool, read.description, read.inputSchema);
  }
  return { specs, skipped };
}
