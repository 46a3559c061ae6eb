/**
 * Skills an agent writes for one subject with `skill_manage`, beside the read-only skills of its
 * version: their bounds, the one-line summary both kinds are listed with, and the exact-once patch.
 * Pure.
 */
import { skillSchema } from "../../../schemas/skill.js";
import type { Skill } from "../../agents/domain/agent-config.js";

/** Skills kept per (organization, agent, subject): as many as one version may hold. */
export const MAX_SUBJECT_SKILLS = 100;
/** The Agents API's bounds of a skill, for both kinds. */
export const SKILL_NAME_MAX = skillSchema.properties.name.maxLength;
export const SKILL_CONTENT_MAX = skillSchema.properties.content.maxLength;
/**
 * Names `skill_manage` gives, as the open SKILL.md standard and Hermes have them (a directory name
 * there): lowercase letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 64.
 */
export const OWN_SKILL_NAME_MAX = 64;
export const OWN_SKILL_NAME_PATTERN = "^[a-z0-9][a-z0-9._-]*$";
/** The standard's bound of a front matter `description`. */
export const SKILL_DESCRIPTION_MAX = 1024;
/** A summary line is cut here: a skill may be one very long line. */
const SUMMARY_MAX = 200;

/** How a skill is listed (in the system prompt and by `skills_list`) without its content. */
export interface SkillSummary {
  name: string;
  summary: string;
}

/** A leading YAML front matter block: its text, and (with the fences) its length. */
export const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * The line a skill is listed with: the `description:` of a leading YAML front matter block (the
 * open-standard SKILL.md form), else the first non-empty line after it, without heading marks.
 */
export function skillSummary(name: string, content: string): string {
  const front = FRONT_MATTER.exec(content);
  const description = front?.[1]!
    .split(/\r?\n/)
    .map((l) => /^description:\s*(.+)$/.exec(l)?.[1])
    .find((d) => d !== undefined);
  const body = front ? content.slice(front[0].length) : content;
  const line =
    description?.trim().replace(/^(["'])(.*)\1$/, "$2") ||
    body
      .split(/\r?\n/)
      .map((l) => l.replace(/^#+\s*/, "").trim())
      .find((l) => l);
  return summaryLine(line || name);
}

/** `text` as one line of at most SUMMARY_MAX characters. */
export function summaryLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= SUMMARY_MAX ? line : `${line.slice(0, SUMMARY_MAX - 1)}…`;
}

/** `text` with the one occurrence of `before` replaced by `after`, or how many there were when not exactly one. */
export function replaceOnce(text: string, before: string, after: string): { ok: true; text: string } | { ok: false; count: number } {
  const at = text.indexOf(before);
  // Overlapping occurrences count too ("aa" is twice in "aaa"): either could be meant.
  let count = 0;
  for (let i = at; i >= 0; i = text.indexOf(before, i + 1)) count++;
  if (count !== 1) return { ok: false, count };
  // Spliced, not String.replace: a replacement string would give `$&` and `$1` in `after` a meaning.
  return { ok: true, text: text.slice(0, at) + after + text.slice(at + before.length) };
}

/**
 * The subject's skills that are shown: a name the version has (given to it after the subject's skill
 * was written) is the version's, and the subject's skill of that name stays hidden while it is.
 */
export function ownSkillsShown(version: readonly Skill[], own: readonly SkillSummary[]): SkillSummary[] {
  const taken = new Set(version.map((s) => s.name));
  return own.filter((s) => !taken.has(s.name));
}
