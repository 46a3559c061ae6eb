/**
 * The `skills` toolset: `skills_list` and `skill_view` over both kinds of skill, the agent version's
 * (read-only, from the Agents API) and the subject's own, which `skill_manage` creates, patches,
 * replaces and deletes. Inputs arrive checked against their schemas (`tool-input.ts`).
 */
import type { Skill } from "../agents/domain/agent-config.js";
import { MAX_SUBJECT_SKILLS, ownSkillsShown, replaceOnce, SKILL_CONTENT_MAX, skillSummary, type SkillSummary } from "./domain/skills.js";
import type { SkillScope, SubjectSkillStore } from "./store/subject-skills.js";
import { checkSkillMd } from "./skill-md.js";

export interface SkillOutcome {
  ok: boolean;
  text: string;
}

export interface SkillContext extends SkillScope {
  /** The version's skills. */
  skills: Skill[];
  /** The subject's own skills, by name. */
  subjectSkills(): Promise<SkillSummary[]>;
}

export type SkillManageInput =
  | { action: "create" | "edit"; name: string; content: string }
  | { action: "patch"; name: string; old_string: string; new_string: string }
  | { action: "delete"; name: string };

const ok = (text: string): SkillOutcome => ({ ok: true, text });
const fail = (text: string): SkillOutcome => ({ ok: false, text });
const scopeOf = (ctx: SkillScope): SkillScope => ({ orgId: ctx.orgId, agentId: ctx.agentId, subjectId: ctx.subjectId });
const unknown = (name: string) => fail(`you have no skill named ${name}; skills_list lists them`);

export class SkillTools {
  constructor(private readonly store: SubjectSkillStore) {}

  async list(ctx: SkillContext): Promise<SkillOutcome> {
    const own = ownSkillsShown(ctx.skills, await ctx.subjectSkills());
    if (ctx.skills.length === 0 && own.length === 0) return ok("This agent has no skills.");
    const lines: string[] = [];
    if (ctx.skills.length > 0) lines.push("Skills of the agent (read-only):", ...ctx.skills.map((s) => `- ${s.name}: ${skillSummary(s.name, s.content)}`));
    if (own.length > 0)
      lines.push(
        `Your skills for this user (${own.length} of ${MAX_SUBJECT_SKILLS}; change them with skill_manage):`,
        ...own.map((s) => `- ${s.name}: ${s.summary}`),
      );
    return ok(lines.join("\n"));
  }

  async view(ctx: SkillContext, name: string): Promise<SkillOutcome> {
    const fixed = ctx.skills.find((s) => s.name === name);
    if (fixed) return ok(`[skill ${name} of the agent, read-only]\n${fixed.content}`);
    const own = await this.store.get(scopeOf(ctx), name);
    return own ? ok(`[your skill ${name} for this user; change it with skill_manage]\n${own.content}`) : fail("no skill of that name; skills_list lists them");
  }

  async manage(input: SkillManageInput, ctx: SkillContext): Promise<SkillOutcome> {
    const { name } = input;
    if (ctx.skills.some((s) => s.name === name)) {
      return fail(
        `${name} is a skill of the agent itself, which is read-only: ${input.action === "create" ? "choose another name" : "only your own skills can be changed"}`,
      );
    }
    const scope = scopeOf(ctx);
    switch (input.action) {
      case "create": {
        const form = checkSkillMd(name, input.content);
        if (!form.ok) return fail(form.problem);
        if (!(await this.store.create(scope, { name, content: input.content, summary: form.summary })))
          return fail(`you already have a skill named ${name}; change it with edit or patch`);
        // Counted after the insert, so two creates at once cannot both pass the bound.
        if ((await this.store.count(scope)) > MAX_SUBJECT_SKILLS) {
          await this.store.remove(scope, name);
          return fail(`at most ${MAX_SUBJECT_SKILLS} skills are kept for this user; delete one first`);
        }
        return ok(`Skill ${name} created.`);
      }
      case "edit": {
        const form = checkSkillMd(name, input.content);
        if (!form.ok) return fail(form.problem);
        return (await this.store.replace(scope, { name, content: input.content, summary: form.summary })) ? ok(`Skill ${name} replaced.`) : unknown(name);
      }
      case "patch": {
        const skill = await this.store.get(scope, name);
        if (!skill) return unknown(name);
        const patched = replaceOnce(skill.content, input.old_string, input.new_string);
        if (!patched.ok)
          return fail(
            patched.count === 0
              ? "old_string was not found in the skill"
              : `old_string occurs ${patched.count} times in the skill; give more context so that it occurs once`,
          );
        if (patched.text.length > SKILL_CONTENT_MAX)
          return fail(`the patched skill would be ${patched.text.length} characters, over the ${SKILL_CONTENT_MAX} allowed`);
        const form = checkSkillMd(name, patched.text);
        if (!form.ok) return fail(`after the patch, ${form.problem}`);
        if (!(await this.store.replace(scope, { name, content: patched.text, summary: form.summary }, skill.revision)))
          return fail(`the skill ${name} changed while it was patched; view it and patch again`);
        return ok(`Patched skill ${name}.`);
      }
      case "delete":
        return (await this.store.remove(scope, name)) ? ok(`Skill ${name} deleted.`) : unknown(name);
    }
  }
}
