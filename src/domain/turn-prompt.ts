/** What the model is given for a turn besides the conversation: the system prompt and the tools it may call. Pure. */
import type { AgentConfig, Skill, ToolConfig } from "./agent-config.js";
import { BUILTIN_SPECS } from "./builtin-tool-specs.js";
import type { ToolSpec } from "./model-types.js";
import { visibleBuiltinTools, visibleCustomTools } from "./tool-permissions.js";

/** Skill contents put in the system prompt when the model cannot read them with skill_view. */
const INLINE_SKILLS_BUDGET = 50_000;

function firstLine(s: Skill): string {
  return s.content.split("\n").map((l) => l.replace(/^#+\s*/, "").trim()).find((l) => l) ?? s.name;
}

/**
 * How skills reach the model: names in the system prompt, read in full with `skill_view` when the
 * skills toolset is visible; otherwise their contents inline, up to a budget.
 */
export function systemPrompt(version: Pick<AgentConfig, "systemPrompt" | "skills">, visible: string[]): string {
  if (version.skills.length === 0) return version.systemPrompt;
  const canView = visible.includes("skill_view");
  const lines = [version.systemPrompt, "", "## Skills"];
  if (canView) {
    lines.push("Read a skill's full instructions with the skill_view tool before relying on it.");
    for (const s of version.skills) lines.push(`- ${s.name}: ${firstLine(s)}`);
  } else {
    let budget = INLINE_SKILLS_BUDGET;
    for (const s of version.skills) {
      const body = s.content.length <= budget ? s.content : `${firstLine(s)} (truncated)`;
      budget -= body.length;
      lines.push(`### ${s.name}`, body);
    }
  }
  return lines.join("\n");
}

/** What the turn's MCP servers offer: their tools' specs, and a line for each server that could not be listed. */
export interface McpOffer {
  specs: ToolSpec[];
  unavailable: string[];
}

/**
 * The system prompt and tool specs of a turn under the governing tools (the role's, or the version's).
 * A server that could not be listed is named in the system prompt, so the model can tell the user why
 * its tools are missing rather than act as if they never existed.
 */
export function turnPrompt(
  version: Pick<AgentConfig, "systemPrompt" | "skills">,
  governing: ToolConfig[],
  mcp: McpOffer = { specs: [], unavailable: [] },
  /** Built-in tools this deployment cannot run (e.g. `web_search` without a backend): never offered. */
  missing: ReadonlySet<string> = new Set(),
): { system: string; tools: ToolSpec[] } {
  const visible = visibleBuiltinTools(governing).filter((name) => !missing.has(name));
  const all: ToolSpec[] = [
    ...visible.map((name) => ({ name, ...BUILTIN_SPECS[name]! })),
    ...mcp.specs,
    ...visibleCustomTools(governing).map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
  ];
  // Names are unique, as the model API requires; the first wins, in the order calls resolve (built-in, MCP, custom).
  const tools = all.filter((t, i) => all.findIndex((u) => u.name === t.name) === i);
  const system = systemPrompt(version, visible);
  if (mcp.unavailable.length === 0) return { system, tools };
  return { system: [system, "", "## Unavailable tools", ...mcp.unavailable.map((line) => `- ${line}`)].join("\n"), tools };
}
