import { expect } from "chai";
import { consoleTest } from "./support/console-page.js";
import { createAgent, createSession } from "./support/api.js";
import { sendText, until } from "./support/sessions.js";
import { ask, toolset } from "./tools-cases.js";

/**
 * The web console's shell, lists and forms end to end, in headless Chromium against a real server.
 * Screenshots of each view are kept in test-artifacts/console/ (git-ignored).
 */
describe("the web console in a browser: views, lists and forms", function () {
  const t = consoleTest();
  const page = () => t.page();
  const hash = () => new URL(page().url()).hash;
  const rows = () => page().locator("table[aria-label=Sessions] tbody tr");

  it("lands on the console from /, keeps the key in sessionStorage only, and gives each view a URL that survives a reload, with back and forward", async () => {
    const hostile = `<img src=x onerror="window.__xss=1">Bot`;
    const agent = await createAgent(t.api(), { name: hostile });
    const session = await createSession(t.api(), agent.id, { title: "First chat" });

    await page().goto("/");
    expect(new URL(page().url()).pathname).to.equal("/console/");
    await page().locator("input[name=api-key]").fill("not-a-key");
    await page().locator("form.signin button[type=submit]").click();
    await page().locator("form.signin .problem", { hasText: "refused" }).waitFor();
    await t.signIn();
    await page().locator("h2", { hasText: "Sessions" }).waitFor();
    expect(await page().evaluate("Object.values(sessionStorage)")).to.deep.equal([t.key()]);
    expect((await t.tab().context.cookies()).length).to.equal(0);

    await page().getByRole("link", { name: "Agents", exact: true }).click();
    expect(hash()).to.equal("#/agents");
    // Shown as text, never parsed: no element was made from the name, and its script never ran.
    await page().locator("table[aria-label=Agents] a", { hasText: hostile }).click();
    expect(hash()).to.equal(`#/agents/${agent.id}`);
    await page().locator("h2", { hasText: hostile }).waitFor();
    await page().locator("table[aria-label='Sessions of this agent'] a", { hasText: "First chat" }).waitFor();
    expect(await page().locator("main img").count()).to.equal(0);
    expect(await page().evaluate(() => (globalThis as { __xss?: number }).__xss)).to.equal(undefined);
    await t.snap("agent");

    await page().reload();
    await page().locator("h2", { hasText: hostile }).waitFor();
    await page().locator("table[aria-label='Sessions of this agent'] a", { hasText: "First chat" }).click();
    expect(hash()).to.equal(`#/sessions/${session.id}`);
    await page().locator("[data-role=stream-state]", { hasText: "live" }).waitFor();
    await page().reload();
    await page().locator("h2", { hasText: "First chat" }).waitFor();
    await page().locator("[data-role=stream-state]", { hasText: "live" }).waitFor();
    // The session names its agent, linked.
    await page().locator(`main a[href="#/agents/${agent.id}"]`, { hasText: hostile }).waitFor();

    await page().goBack();
    await page().locator("h2", { hasText: hostile }).waitFor();
    await page().goBack();
    await page().locator("table[aria-label=Agents]").waitFor();
    await page().goForward();
    await page().locator("h2", { hasText: hostile }).waitFor();

    await page().locator("[data-role=sign-out]").click();
    await page().locator("input[name=api-key]").waitFor();
    expect(await page().evaluate("sessionStorage.length")).to.equal(0);
    await page().reload();
    await page().locator("input[name=api-key]").waitFor();
  });

  it("filters sessions by status, agent and subject, shows those that need action and agents by name, and follows the list live", async () => {
    const alpha = await createAgent(t.api(), { name: "Alpha", tools: [toolset(ask)] });
    const beta = await createAgent(t.api(), { name: "Beta" });
    await createSession(t.api(), alpha.id, { title: "Alpha alice", subjectId: "alice" });
    await createSession(t.api(), beta.id, { title: "Beta bob", subjectId: "bob" });
    const waiting = await createSession(t.api(), alpha.id, { title: "Waiting one", subjectId: "carol" });
    await sendText(t.api(), waiting.id, "/tool todo {}");
    await until(
      () => t.api().get(`/v1/sessions/${waiting.id}`),
      (r) => r.body.status === "waiting_on_human",
      15_000,
      "the session to wait",
    );

    await t.signIn("#/sessions");
    // Every row's agent named (a name is read after the row is drawn).
    for (const [title, agentName] of [
      ["Beta bob", "Beta"],
      ["Alpha alice", "Alpha"],
      ["Waiting one", "Alpha"],
    ] as const) {
      await rows()
        .filter({ hasText: title })
        .locator("a.agent-name", { hasText: new RegExp(`^${agentName}$`) })
        .waitFor();
    }
    expect(await rows().count()).to.equal(3);
    // Agents by name, never by id.
    expect(await page().locator("table[aria-label=Sessions]").innerText()).not.to.include(alpha.id);
    await t.snap("sessions");

    // Every view's navigation counts the sessions waiting on a human.
    await page().locator("nav [data-role=waiting-count]", { hasText: /^1$/ }).waitFor();
    await page()
      .getByRole("link", { name: /^Needs action/ })
      .click();
    await page().locator("h2", { hasText: "Needs action" }).waitFor();
    expect(hash()).to.equal("#/sessions?status=waiting_on_human");
    await until(
      () => rows().allInnerTexts(),
      (texts) => texts.length === 1 && texts[0]!.includes("Waiting one") && texts[0]!.includes("waiting_on_human"),
      15_000,
      "only the waiting session",
    );
    await t.snap("needs-action");

    await page().locator("select[name=status]").selectOption("");
    await page().locator(`select[name=agent] option[value="${beta.id}"]`).waitFor({ state: "attached" });
    await page().locator("select[name=agent]").selectOption(beta.id);
    await until(
      () => rows().allInnerTexts(),
      (texts) => texts.length === 1 && texts[0]!.includes("Beta bob"),
      15_000,
      "Beta's session",
    );
    await page().locator("select[name=agent]").selectOption("");
    await page().locator("input[name=subject]").fill("alice");
    await page().locator("input[name=subject]").press("Enter");
    expect(hash()).to.equal("#/sessions?subject=alice");
    await until(
      () => rows().allInnerTexts(),
      (texts) => texts.length === 1 && texts[0]!.includes("Alpha alice"),
      15_000,
      "alice's session",
    );
    await page().reload();
    expect(await page().locator("input[name=subject]").inputValue()).to.equal("alice");

    // Made elsewhere while the list is shown: it appears without a reload.
    await createSession(t.api(), beta.id, { title: "Arrived later", subjectId: "alice" });
    await rows().filter({ hasText: "Arrived later" }).waitFor();
    expect(await rows().count()).to.equal(2);
  });

  it("creates an agent from JSON and a session with it, saying plainly what is wrong with an input", async () => {
    await t.signIn("#/agents");
    await page().locator("details.create summary").click();
    const body = page().locator("textarea[name=agent-json]");
    const problem = page().locator("details.create .problem");
    await body.fill("{ not json");
    await page().getByRole("button", { name: "Create agent" }).click();
    await problem.filter({ hasText: /^That is not JSON: / }).waitFor();
    await body.fill(JSON.stringify({ name: "Made here", systemPrompt: "", skills: [], tools: [] }));
    await page().getByRole("button", { name: "Create agent" }).click();
    await problem.filter({ hasText: /^Not accepted: .*modelName/ }).waitFor();
    expect(await problem.innerText()).not.to.match(/[{}]|409|400/);
    await t.snap("new-agent-refused");

    await body.fill(JSON.stringify({ name: "Made here", modelName: "mock/echo", systemPrompt: "Be brief.", skills: [], tools: [] }));
    await page().getByRole("button", { name: "Create agent" }).click();
    await page().locator("h2", { hasText: "Made here" }).waitFor();
    const agentId = decodeURIComponent(hash().replace("#/agents/", ""));
    expect((await t.api().get(`/v1/agents/${agentId}`)).body.version.systemPrompt).to.equal("Be brief.");

    await page().getByRole("button", { name: "Start session" }).click();
    await page().locator(".new-session .problem", { hasText: "Name the subject" }).waitFor();
    await page().locator("input[name=subject]").fill("user-7");
    await page().locator("input[name=title]").fill("From the console");
    await page().getByRole("button", { name: "Start session" }).click();
    await page().locator("h2", { hasText: "From the console" }).waitFor();
    await page().locator("[data-role=stream-state]", { hasText: "live" }).waitFor();
    const sessionId = decodeURIComponent(hash().replace("#/sessions/", ""));
    expect((await t.api().get(`/v1/sessions/${sessionId}`)).body).to.include({ agentId, subjectId: "user-7", title: "From the console" });
  });
});
