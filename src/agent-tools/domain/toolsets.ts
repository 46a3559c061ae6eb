/** The built-in toolsets and the tools each one exposes to the model. */

export const TOOLSETS = {
  clarify: ["clarify"],
  vision: ["vision_analyze"],
  skills: ["skills_list", "skill_view", "skill_manage"],
  todo: ["todo"],
  memory: ["memory"],
  session_search: ["session_search"],
  code_execution: ["execute_code"],
  web: ["web_search", "web_extract"],
  terminal: ["terminal", "process"],
  file: ["read_file", "write_file", "patch", "search_files"],
  // Its tools are named by the version's callable agents (`delegationToolName`), none fixed.
  delegation: [],
} as const satisfies Record<string, readonly string[]>;

export type ToolsetName = keyof typeof TOOLSETS;

export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set(Object.values(TOOLSETS).flat());

/** The delegation toolset's tools: `delegate__<agentId>`, one per callable agent of the version. */
const DELEGATION_PREFIX = "delegate__";

export const delegationToolName = (agentId: string) => `${DELEGATION_PREFIX}${agentId}`;

export const isDelegationTool = (name: string) => name.startsWith(DELEGATION_PREFIX) && name.length > DELEGATION_PREFIX.length;

/** The agent a delegation tool calls. */
export const calleeOf = (toolName: string) => toolName.slice(DELEGATION_PREFIX.length);

export function toolsetOf(toolName: string): ToolsetName | undefined {
  if (isDelegationTool(toolName)) return "delegation";
  for (const [set, tools] of Object.entries(TOOLSETS)) {
    if ((tools as readonly string[]).includes(toolName)) return set as ToolsetName;
  }
  return undefined;
}
