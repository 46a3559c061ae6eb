import { expect } from "chai";
import { replaceOnce, skillSummary } from "../../src/agent-tools/domain/skills.js";
import { systemPrompt } from "../../src/worker/domain/turn-prompt.js";
import { checkSkillMd } from "../../src/agent-tools/skill-md.js";
import { inputProblem } from "../../src/agent-tools/tool-input.js";

const refunds = { name: "refunds", content: "---\nname: refunds\ndescription: Use when a refund is asked for.\n---\nWithin 30 days." };

describe("skills (pure)", () => {
  it("the system prompt lists the version's skills, then the subject's own apart; a version name hides an own skill of that name", () => {
    const own = [
      { name: "greeting", summary: "Use when greeting." },
      { name: "refunds", summary: "Shadowed." },
    ];
    expect(systemPrompt({ systemPrompt: "Be kind.", skills: [refunds], subjectSkills: own }, ["skill_view"]).split("\n")).to.deep.equal([
      "Be kind.",
      "",
      "## Skills",
      "Read a skill's full instructions with the skill_view tool before relying on it.",
      "- refunds: Use when a refund is asked for.",
      "",
      "### Your skills for this user",
      "Written by you in earlier conversations with this user; change them with skill_manage.",
      "- greeting: Use when greeting.",
    ]);
    expect(systemPrompt({ systemPrompt: "Be kind.", skills: [], subjectSkills: own.slice(0, 1) }, ["skill_view"])).to.include("- greeting: Use when greeting.");
    // Without skill_view the own skills are not shown (nor could they be read).
    expect(systemPrompt({ systemPrompt: "Be kind.", skills: [], subjectSkills: own }, [])).to.equal("Be kind.");
  });

  it("summaries: the front matter's description, else the first line; one line, cut at 200 characters", () => {
    expect(skillSummary("r", refunds.content)).to.equal("Use when a refund is asked for.");
    expect(skillSummary("r", "\n## Heading  \nbody")).to.equal("Heading");
    expect(skillSummary("r", `---\ndescription: "${"y".repeat(300)}"\n---\nb`)).to.have.length(200);
  });

  it("replaceOnce replaces exactly one occurrence, literally; overlapping ones count", () => {
    expect(replaceOnce("a $1 b", "$1", "$&")).to.deep.equal({ ok: true, text: "a $& b" });
    expect(replaceOnce("aaa", "aa", "b")).to.deep.equal({ ok: false, count: 2 });
    expect(replaceOnce("abc", "x", "y")).to.deep.equal({ ok: false, count: 0 });
  });

  it("SKILL.md front matter: a mapping naming the skill, with a description, no aliases, and a body", () => {
    expect(checkSkillMd("refunds", refunds.content)).to.deep.equal({ ok: true, summary: "Use when a refund is asked for." });
    expect(checkSkillMd("r", "---\na: &a [1]\nb: [*a]\nname: r\ndescription: d\n---\nbody")).to.deep.equal({
      ok: false,
      problem: "the front matter must be a YAML mapping of name and description (aliases are not allowed)",
    });
    expect(checkSkillMd("r", "---\n- r\n---\nbody")).to.deep.equal({ ok: false, problem: "the front matter must be a YAML mapping of name and description" });
    expect(checkSkillMd("r", `---\nname: r\ndescription: ${"d".repeat(1025)}\n---\nbody`)).to.deep.equal({
      ok: false,
      problem: "the description must be at most 1024 characters",
    });
    expect(checkSkillMd("r", "---\nname: r\ndescription: d\n---\n \n")).to.deep.equal({
      ok: false,
      problem: "the skill needs instructions after its front matter",
    });
  });

  it("skill_manage's content is bounded by its schema (a user message cannot carry that much to the mock model)", () => {
    const content = "x".repeat(100_001);
    expect(inputProblem("skill_manage", { action: "create", name: "big", content })).to.equal("invalid input: content: must be at most 100000 characters");
    expect(inputProblem("skill_manage", { action: "patch", name: "big", old_string: "a", new_string: content })).to.equal(
      "invalid input: new_string: must be at most 100000 characters",
    );
  });
});
