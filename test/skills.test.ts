/**
 * Skills through sessions: the version's (read-only) and the subject's own, written with skill_manage
 * and seen by later turns and other sessions of the same agent and subject, never by another subject
 * or organization; bad inputs and the bound on skills per subject.
 */
import { expect } from "chai";
import { newSubject } from "./support/api.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";
import { sendText, settle } from "./support/sessions.js";
import { outputText } from "./support/tool-calls.js";
import { allow, toolset } from "./tools-cases.js";

const REFUNDS = { name: "refunds", content: "# Refund policy\nWithin 30 days, no questions." };
const skillMd = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

describe("skills: skills_list, skill_view and skill_manage", () => {
  let server: TestServer;
  let api: Client;
  let other: Client;
  const turns = new Map<string, number>();

  before(async () => {
    server = await startServer({ WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}` });
    api = client(server.url, await server.newKey());
    other = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  async function agent(c: Client = api, skills: unknown[] = [REFUNDS]): Promise<string> {
    const res = await c.post("/v1/agents", agentBody({ skills, tools: [toolset(allow)] }));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  }
  async function session(agentId: string, subjectId: string, c: Client = api): Promise<{ c: Client; id: string }> {
    const res = await c.post("/v1/sessions", { agentId, subjectId });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { c, id: res.body.id as string };
  }
  /** Runs the tool calls (one turn, one `/tool` line each) and returns their results, in order. */
  async function calls(s: { c: Client; id: string }, ...lines: [string, unknown][]): Promise<{ ok: boolean; text: string }[]> {
    await sendText(s.c, s.id, lines.map(([tool, input]) => `/tool ${tool} ${JSON.stringify(input)}`).join("\n"));
    const n = (turns.get(s.id) ?? 0) + 1;
    turns.set(s.id, n);
    const events = await settle(s.c, s.id, n);
    const results = events.filter((e) => e.type === "agent.tool_result").slice(-lines.length);
    expect(results).to.have.length(lines.length);
    return results.map((e) => ({ ok: !e.payload.is_error, text: outputText(e.payload) }));
  }
  const call = async (s: { c: Client; id: string }, tool: string, input: unknown) => (await calls(s, [tool, input]))[0]!;
  const manage = (s: { c: Client; id: string }, input: Record<string, unknown>) => call(s, "skill_manage", input);

  it("a created skill is listed and read in a later turn, and in another session of the same agent and subject", async () => {
    const agentId = await agent();
    const subject = newSubject();
    const first = await session(agentId, subject);
    const content = skillMd("greeting", "Use when greeting a returning customer.", "Say their name; mention the last order.");
    expect(await manage(first, { action: "create", name: "greeting", content })).to.deep.equal({ ok: true, text: "Skill greeting created." });

    expect(await call(first, "skills_list", {})).to.deep.equal({
      ok: true,
      text: [
        "Skills of the agent (read-only):",
        "- refunds: Refund policy",
        "Your skills for this user (1 of 100; change them with skill_manage):",
        "- greeting: Use when greeting a returning customer.",
      ].join("\n"),
    });
    expect(await call(first, "skill_view", { name: "greeting" })).to.deep.equal({
      ok: true,
      text: `[your skill greeting for this user; change it with skill_manage]\n${content}`,
    });
    expect(await call(first, "skill_view", { name: "refunds" })).to.deep.equal({
      ok: true,
      text: `[skill refunds of the agent, read-only]\n${REFUNDS.content}`,
    });

    const second = await session(agentId, subject);
    const [list, view] = await calls(second, ["skills_list", {}], ["skill_view", { name: "greeting" }]);
    expect(list!.text).to.include("- greeting: Use when greeting a returning customer.");
    expect(view!.text).to.include("Say their name; mention the last order.");
  });

  it("patch replaces the one occurrence, edit the whole skill, delete removes it; each change shows at the next call", async () => {
    const s = await session(await agent(), newSubject());
    await manage(s, { action: "create", name: "tone", content: skillMd("tone", "Use when writing replies.", "Be brief. Be kind.") });

    expect(await manage(s, { action: "patch", name: "tone", old_string: "brief", new_string: "very brief ($& kept)" })).to.deep.equal({
      ok: true,
      text: "Patched skill tone.",
    });
    expect((await call(s, "skill_view", { name: "tone" })).text).to.match(/Be very brief \(\$& kept\)\. Be kind\.$/);
    expect(await manage(s, { action: "patch", name: "tone", old_string: "Use when writing replies.", new_string: "Use when writing any reply." })).to.include({
      ok: true,
    });
    expect((await call(s, "skills_list", {})).text).to.include("- tone: Use when writing any reply.");

    const replaced = skillMd("tone", "Use when answering complaints.", "Apologize once.");
    expect(await manage(s, { action: "edit", name: "tone", content: replaced })).to.deep.equal({ ok: true, text: "Skill tone replaced." });
    expect((await call(s, "skill_view", { name: "tone" })).text).to.equal(`[your skill tone for this user; change it with skill_manage]\n${replaced}`);

    expect(await manage(s, { action: "delete", name: "tone" })).to.deep.equal({ ok: true, text: "Skill tone deleted." });
    expect((await call(s, "skills_list", {})).text).to.equal("Skills of the agent (read-only):\n- refunds: Refund policy");
    expect(await call(s, "skill_view", { name: "tone" })).to.deep.equal({ ok: false, text: "no skill of that name; skills_list lists them" });
  });

  it("a subject's skills never reach another subject of the agent nor another organization", async () => {
    const agentId = await agent();
    const subject = newSubject();
    const owner = await session(agentId, subject);
    await manage(owner, { action: "create", name: "secret-steps", content: skillMd("secret-steps", "Use when X.", "Owner only.") });

    const stranger = await session(agentId, newSubject());
    const [list, view, patch, del] = await calls(
      stranger,
      ["skills_list", {}],
      ["skill_view", { name: "secret-steps" }],
      ["skill_manage", { action: "patch", name: "secret-steps", old_string: "Owner", new_string: "Anyone" }],
      ["skill_manage", { action: "delete", name: "secret-steps" }],
    );
    expect(list!.text).to.equal("Skills of the agent (read-only):\n- refunds: Refund policy");
    expect(view).to.deep.equal({ ok: false, text: "no skill of that name; skills_list lists them" });
    expect(patch).to.deep.equal({ ok: false, text: "you have no skill named secret-steps; skills_list lists them" });
    expect(del).to.deep.equal({ ok: false, text: "you have no skill named secret-steps; skills_list lists them" });
    // The same name is free for the other subject, and stays apart.
    await manage(stranger, { action: "create", name: "secret-steps", content: skillMd("secret-steps", "Use when Y.", "Stranger's.") });

    // Another organization, the same subject id: its own agent sees none of them.
    const elsewhere = await session(await agent(other, []), subject, other);
    const [otherList, otherView] = await calls(elsewhere, ["skills_list", {}], ["skill_view", { name: "secret-steps" }]);
    expect(otherList).to.deep.equal({ ok: true, text: "This agent has no skills." });
    expect(otherView!.ok).to.equal(false);
    // Another agent of the same organization and subject: skills are the agent's, for the subject.
    const [sibling] = await calls(await session(await agent(api, []), subject), ["skills_list", {}]);
    expect(sibling).to.deep.equal({ ok: true, text: "This agent has no skills." });

    expect((await call(owner, "skill_view", { name: "secret-steps" })).text).to.match(/Owner only\.$/);
  });

  it("the agent's own skills are read-only", async () => {
    const s = await session(await agent(), newSubject());
    const results = await calls(
      s,
      ["skill_manage", { action: "edit", name: "refunds", content: skillMd("refunds", "Mine now.", "Anything goes.") }],
      ["skill_manage", { action: "patch", name: "refunds", old_string: "30", new_string: "3000" }],
      ["skill_manage", { action: "delete", name: "refunds" }],
      ["skill_manage", { action: "create", name: "refunds", content: skillMd("refunds", "Shadow.", "Anything goes.") }],
    );
    const readOnly = "refunds is a skill of the agent itself, which is read-only: ";
    expect(results).to.deep.equal([
      { ok: false, text: `${readOnly}only your own skills can be changed` },
      { ok: false, text: `${readOnly}only your own skills can be changed` },
      { ok: false, text: `${readOnly}only your own skills can be changed` },
      { ok: false, text: `${readOnly}choose another name` },
    ]);
    expect((await call(s, "skill_view", { name: "refunds" })).text).to.equal(`[skill refunds of the agent, read-only]\n${REFUNDS.content}`);
  });

  it("bad inputs are tool errors that say what is wrong", async () => {
    const s = await session(await agent(), newSubject());
    const good = skillMd("notes", "Use when taking notes.", "Write it down. Write it twice.");
    await manage(s, { action: "create", name: "notes", content: good });
    const cases: [Record<string, unknown>, string][] = [
      [{ action: "create", name: "Bad Name", content: good }, "invalid input: name: must match the pattern ^[a-z0-9][a-z0-9._-]*$"],
      [{ action: "create", name: "../etc", content: good }, "invalid input: name: must match the pattern ^[a-z0-9][a-z0-9._-]*$"],
      [{ action: "create", name: "x".repeat(65), content: good }, "invalid input: name: must be at most 64 characters"],
      [{ action: "create", name: "empty" }, "invalid input: content: is required"],
      [{ action: "delete", name: "notes", content: good }, "invalid input: content: is not allowed"],
      [{ action: "patch", name: "notes", content: good }, "invalid input: old_string: is required; new_string: is required; content: is not allowed"],
      [{ action: "rename", name: "notes" }, "invalid input: action: must be one of: create, patch, edit, delete"],
      [{ action: "delete", name: "notes", force: true }, "invalid input: force: is not allowed"],
      [
        { action: "create", name: "plain", content: "# Plain\nNo front matter." },
        "the content must start with YAML front matter, like ---\\nname: plain\\ndescription: Use when …\\n---\\n<instructions>",
      ],
      [{ action: "create", name: "other", content: good }, "the front matter's name must be the skill's name, other"],
      [{ action: "create", name: "notes", content: good }, "you already have a skill named notes; change it with edit or patch"],
      [{ action: "patch", name: "notes", old_string: "absent", new_string: "x" }, "old_string was not found in the skill"],
      [
        { action: "patch", name: "notes", old_string: "Write it", new_string: "x" },
        "old_string occurs 2 times in the skill; give more context so that it occurs once",
      ],
      [
        { action: "patch", name: "notes", old_string: "description: Use when taking notes.\n", new_string: "" },
        "after the patch, the front matter needs a description: what the skill is for and when to use it",
      ],
      [{ action: "edit", name: "missing", content: skillMd("missing", "d", "b") }, "you have no skill named missing; skills_list lists them"],
      [{ action: "delete", name: "missing" }, "you have no skill named missing; skills_list lists them"],
    ];
    const results = await calls(s, ...cases.map(([input]): [string, unknown] => ["skill_manage", input]));
    expect(results).to.deep.equal(cases.map(([, text]) => ({ ok: false, text })));
    expect(await calls(s, ["skill_view", {}], ["skill_view", { name: "a\nb" }], ["skills_list", { all: true }])).to.deep.equal([
      { ok: false, text: "invalid input: name: is required" },
      { ok: false, text: "invalid input: name: must match the pattern ^[^\\u0000-\\u001f\\u007f]*$" },
      { ok: false, text: "invalid input: all: is not allowed" },
    ]);
    expect((await call(s, "skill_view", { name: "notes" })).text).to.include(good);
  });

  it("a skill grows to at most 100000 characters (a message holds 20000: the bound is met by patches)", async () => {
    const s = await session(await agent(), newSubject());
    const chunk = "x".repeat(19_000);
    await manage(s, { action: "create", name: "long", content: skillMd("long", "Use when long.", `${chunk}END`) });
    const grow = { action: "patch", name: "long", old_string: "END", new_string: `${chunk}END` };
    for (let i = 0; i < 4; i++) expect(await manage(s, grow)).to.deep.equal({ ok: true, text: "Patched skill long." });
    const over = skillMd("long", "Use when long.", `${chunk.repeat(6)}END`).length;
    expect(await manage(s, grow)).to.deep.equal({ ok: false, text: `the patched skill would be ${over} characters, over the 100000 allowed` });
    expect((await call(s, "skill_view", { name: "long" })).text).to.have.length(
      "[your skill long for this user; change it with skill_manage]\n".length + over - chunk.length,
    );
  });

  it("keeps at most 100 skills per agent and subject", async () => {
    const s = await session(await agent(), newSubject());
    const create = (name: string): [string, unknown] => ["skill_manage", { action: "create", name, content: skillMd(name, `Skill ${name}.`, "Body.") }];
    const made = await calls(s, ...Array.from({ length: 100 }, (_, i) => create(`s${i}`)));
    expect(made.every((r) => r.ok)).to.equal(true);
    expect(await calls(s, create("one-more"))).to.deep.equal([{ ok: false, text: "at most 100 skills are kept for this user; delete one first" }]);
    expect((await call(s, "skills_list", {})).text)
      .to.include("Your skills for this user (100 of 100;")
      .and.not.include("one-more");
    await manage(s, { action: "delete", name: "s0" });
    expect(await calls(s, create("one-more"))).to.deep.equal([{ ok: true, text: "Skill one-more created." }]);
  });
});
