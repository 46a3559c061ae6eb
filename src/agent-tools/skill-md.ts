/**
 * The form of a skill `skill_manage` writes, as in the open SKILL.md standard (and Hermes): YAML front
 * matter with the skill's `name` and a `description` (the line it is listed with), then a Markdown body.
 * Checked on every write, so a listed skill always has its description.
 */
import { parseDocument } from "yaml";
import { FRONT_MATTER, SKILL_DESCRIPTION_MAX, summaryLine } from "./domain/skills.js";

export type SkillMdCheck = { ok: true; summary: string } | { ok: false; problem: string };

const EXAMPLE = "---\\nname: <name>\\ndescription: Use when …\\n---\\n<instructions>";

export function checkSkillMd(name: string, content: string): SkillMdCheck {
  const front = FRONT_MATTER.exec(content);
  if (!front) return { ok: false, problem: `the content must start with YAML front matter, like ${EXAMPLE.replace("<name>", name)}` };
  const doc = parseDocument(front[1]!, { logLevel: "silent" });
  let why = doc.errors[0]?.message.split("\n")[0]?.replace(/:$/, "");
  let fields: unknown;
  if (!why) {
    // Aliases are refused outright: a few lines of them could expand into a huge value.
    try {
      fields = doc.toJS({ maxAliasCount: 0 });
    } catch {
      why = "aliases are not allowed";
    }
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    return { ok: false, problem: `the front matter must be a YAML mapping of name and description${why ? ` (${why})` : ""}` };
  }
  const { name: named, description } = fields as Record<string, unknown>;
  if (named !== name) return { ok: false, problem: `the front matter's name must be the skill's name, ${name}` };
  if (typeof description !== "string" || description.trim() === "")
    return { ok: false, problem: "the front matter needs a description: what the skill is for and when to use it" };
  if (description.length > SKILL_DESCRIPTION_MAX) return { ok: false, problem: `the description must be at most ${SKILL_DESCRIPTION_MAX} characters` };
  if (content.slice(front[0].length).trim() === "") return { ok: false, problem: "the skill needs instructions after its front matter" };
  return { ok: true, summary: summaryLine(description) };
}
