/** What the model is given for a turn besides the conversation: the system prompt and the tools it may call. Pure. */
import type { AgentConfig, ToolConfig } from "../../agents/domain/agent-config.js";
import { BUILTIN_SPECS, DELEGATION_INPUT, delegationDescription } from "../../agent-tools/domain/builtin-tool-specs.js";
import type { ToolSpec } from "../../providers/domain/model-types.js";
import { ownSkillsShown, skillSummary, type SkillSummary } from "../../agent-tools/domain/skills.js";
import { visibleBuiltinTools, visibleCustomTools, visibleToolsets } from "./tool-permissions.js";
import { delegationToolName } from "../../agent-tools/domain/toolsets.js";
import { callableAgentsOf } from "../../agents/domain/agent-config.js";

/** Skill contents put in the system prompt when the model cannot read them with skill_view. */
const INLINE_SKILLS_BUDGET = 50_000;

/** The version's prompt and skills, with the subject's own skills (`skill_manage`) when the turn shows them. */
export type PromptSource = Pick<AgentConfig, "systemPrompt" | "skills" | "callableAgents"> & { subjectSkills?: readonly SkillSummary[] };

/**
 * Whether a turn under the governing tools shows the subject's own skills: only with the skills
 * toolset, whose tools read and change them (so a turn without it need not read them at all).
 */
export function showsSubjectSkills(governing: ToolConfig[]): boolean {
  return visibleBuiltinTools(governing).includes("skill_view");
}

/**
 * How skills reach the model: names in the system prompt, read in full with `skill_view` when the
 * skills toolset is visible, the subject's own listed apart; otherwise the version's contents inline,
 * up to a budget.
 */
export function systemPrompt(version: PromptSource, visible: string[]): string {
  const canView = visible.includes("skill_view");
  const own = canView ? ownSkillsShown(version.skills, version.subjectSkills ?? []) : [];
  if (version.skills.length === 0 && own.length === 0) return version.systemPrompt;
  const lines = [version.systemPrompt, "", "## Skills"];
  if (canView) {
    lines.push("Read a skill's full instructions with the skill_view tool before relying on it.");
    for (const s of version.skills) lines.push(`- ${s.name}: ${skillSummary(s.name, s.content)}`);
    if (own.length > 0) {
      lines.push("", "### Your skills for this user", "Written by you in earlier conversations with this user; change them with skill_manage.");
      for (const s of own) lines.push(`- ${s.name}: ${s.summary}`);
    }
  } else {
    let budget = INLINE_SKILLS_BUDGET;
    for (const s of version.skills) {
      const body = s.content.length <= budget ? s.content : `${skillSummary(s.name, s.content)} (truncated)`;
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
  version: PromptSource,
  governing: ToolConfig[],
  mcp: McpOffer = { specs: [], unavailable: [] },
  /** Built-in tools this deployment cannot run (e.g. `web_search` without a backend): never offered. */
  missing: ReadonlySet<string> = new Set(),
): { system: string; tools: ToolSpec[] } {
  const visible = visibleBuiltinTools(governing).filter((name) => !missing.has(name));
  const delegations = visibleToolsets(governing).includes("delegation") ? callableAgentsOf(version) : [];
  const all: ToolSpec[] = [
    ...visible.map((name) => ({ name, ...BUILTIN_SPECS[name]! })),
    ...delegations.map((c) => ({ name: delegationToolName(c.agentId), description: delegationDescription(c.description), input_schema: DELEGATION_INPUT })),
    ...mcp.specs,
    ...visibleCustomTools(governing).map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
  ];
  // Names are unique, as the model API requires; the first wins, in the order calls resolve (built-in, MCP, custom).
  const tools = all.filter((t, i) => all.findIndex((u) => u.name === t.name) === i);
  const system = systemPrompt(version, visible);
  if (mcp.unavailable.length === 0) return { system, tools };
  return { system: [system, "", "## Unavailable tools", ...mcp.unavailable.map((line) => `- ${line}`)].join("\n"), tools };
}
