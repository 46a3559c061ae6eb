import { expect } from "chai";
import { consoleTest } from "./support/console-page.js";
import { createAgent, createSession } from "./support/api.js";
import { sendText, settle } from "./support/sessions.js";
import { allow, ask, toolset } from "./tools-cases.js";

/**
 * The console's session view end to end, in headless Chromium against a real server: the live log, its
 * auto-follow, tool call cards, the composer while a turn runs, usage, and resuming after a drop.
 * Screenshots are kept in test-artifacts/console/ (git-ignored).
 */
describe("the web console in a browser: a session", function () {
  const t = consoleTest();
  const page = () => t.page();
  const status = (text: string) => page().locator("[data-role=session-status]", { hasText: text }).waitFor();

  async function open(sessionId: string): Promise<void> {
    await t.signIn(`#/sessions/${sessionId}`);
    await page().locator("[data-role=stream-state]", { hasText: "live" }).waitFor();
  }

  it("sends a message and shows the answer as it streams, with each turn's and the session's tokens, cost and latency", async () => {
    const agent = await createAgent(t.api());
    const session = await createSession(t.api(), agent.id);
    await open(session.id);
    await page().locator("[data-role=session-usage]", { hasText: "No turn has ended yet." }).waitFor();
    const text = `Hello <b>there</b> <script>window.__xss=1</script>`;
    await page().locator("textarea[name=message]").fill(text);
    await page().getByRole("button", { name: "Send", exact: true }).click();
    // Only the stream brings the agent's answer and the generated title.
    await t.event("agent.message", `echo: ${text}`).waitFor();
    await status("idle");
    await page().locator("h2", { hasText: "Hello" }).waitFor();
    expect(await page().locator("main b, main script").count()).to.equal(0);
    expect(await page().evaluate(() => (globalThis as { __xss?: number }).__xss)).to.equal(undefined);

    const usage = (await t.api().get(`/v1/sessions/${session.id}`)).body.usage;
    const turn = await t.event("session.status_idle").locator("[data-role=turn-usage]").innerText();
    expect(turn).to.match(
      new RegExp(`^${usage.total} tokens \\(${usage.input} in, ${usage.output} out\\) · (cost (unknown|included)|\\$[0-9.]+( \\(est\\.\\))?) · `),
    );
    expect(turn).to.include(`${usage.calls} model call`);
    expect(turn).to.match(/ (ms|s) · /);
    await page()
      .locator("[data-role=session-usage]", { hasText: `This session: ${usage.total} tokens` })
      .waitFor();
    await t.snap("session");

    const stream = t.tab().requests.find((r) => r.url.includes(`/v1/sessions/${session.id}/events/stream`));
    expect(stream?.headers["x-api-key"]).to.equal(t.key());
    const loaded = t.tab().requests.map((r) => new URL(r.url).pathname);
    expect(loaded).to.include.members(["/console/assets/client/event-stream.js", "/console/assets/vendor/eventsource-parser.js"]);
  });

  it("shows a delegation's hand-off with a link to the child thread, and the thread names its parent", async () => {
    const callee = await createAgent(t.api(), { name: "Researcher" });
    const lead = await createAgent(t.api(), {
      callableAgents: [{ agentId: callee.id, description: "Finds facts" }],
      tools: [toolset(ask, [{ name: "delegation", permissionPolicy: allow }])],
    });
    const session = await createSession(t.api(), lead.id);
    await sendText(t.api(), session.id, `/tool delegate__${callee.id} {"message":"find the tallest tree"}`);
    const events = await settle(t.api(), session.id, 1);
    const threadId = events.find((e) => e.type === "agent.thread_message_sent").payload.thread_id;
    await open(session.id);
    await t.event("agent.thread_message_received", "echo: find the tallest tree").waitFor();
    await t.event("agent.thread_message_sent").locator("[data-role=thread-link]").click();
    await page().locator("[data-role=thread-parent]", { hasText: session.id }).waitFor();
    await t.event("agent.message", "echo: find the tallest tree").waitFor();
    expect(new URL(page().url()).hash).to.equal(`#/sessions/${threadId}`);
  });

  it("reads a long history page by page, goes live after it, and follows new events unless the reader scrolled up", async () => {
    const agent = await createAgent(t.api());
    const session = await createSession(t.api(), agent.id, { title: "Long" });
    // Queued prompts run one turn each: 26 turns leave more than 100 durable events.
    for (let i = 1; i <= 26; i++) expect((await sendText(t.api(), session.id, `message ${i}`, "when_idle")).status).to.equal(202);
    const events = await settle(t.api(), session.id, 26, 60_000);
    expect(events.length).to.be.greaterThan(100);
    await open(session.id);
    for (const i of [1, 26]) await t.event("agent.message", new RegExp(`echo: message ${i}$`)).waitFor();
    expect(await page().locator("li.event").count()).to.equal(events.length);
    const pages = t
      .tab()
      .requests.filter((r) => r.url.includes(`/v1/sessions/${session.id}/events?`))
      .map((r) => new URL(r.url).searchParams.get("after"));
    expect(pages).to.deep.equal(["0", "100"]);
    const stream = t.tab().requests.find((r) => r.url.includes("/events/stream"));
    expect(new URL(stream!.url).searchParams.get("after")).to.equal(String(events.at(-1).sequence));

    const atBottom = () => page().waitForFunction("innerHeight + scrollY >= document.documentElement.scrollHeight - 48");
    const jump = page().locator("[data-role=jump-to-latest]");
    await atBottom();
    // Resolved once the page's own scroll listener has run (listeners run in order), so the console has
    // stopped following before the next events arrive.
    await page().evaluate("new Promise((resolve) => { addEventListener('scroll', () => resolve(), { once: true }); scrollTo(0, 0); })");
    await sendText(t.api(), session.id, "while you read");
    await t.event("agent.message", "echo: while you read").waitFor({ state: "attached" });
    await jump.waitFor();
    expect(await page().evaluate("scrollY")).to.equal(0);
    await t.snap("session-scrolled-up");
    await jump.click();
    await atBottom();
    await jump.waitFor({ state: "hidden" });
    await sendText(t.api(), session.id, "followed");
    await t.event("agent.message", "echo: followed").waitFor();
    await atBottom();
    expect(await jump.isHidden()).to.equal(true);
  });

  it("gives each tool call one card with its real status and result; approves, denies with a reason, returns a custom tool's result, answers a question", async () => {
    const agent = await createAgent(t.api(), {
      tools: [
        toolset(ask),
        {
          type: "custom_tool",
          name: "lookup_order",
          description: "Finds an order",
          input_schema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
        },
      ],
    });
    const session = await createSession(t.api(), agent.id, { title: "Orders" });
    await open(session.id);
    const send = async (text: string) => {
      await page().locator("textarea[name=message]").fill(text);
      await page().getByRole("button", { name: "Send", exact: true }).click();
    };
    const callStatus = (card: ReturnType<typeof t.card>) => card.locator("[data-role=call-status]");

    await send("/tool todo {}");
    await status("waiting_on_human");
    const first = t.card("todo").first();
    expect(await callStatus(first).innerText()).to.equal("awaiting approval");
    await first.getByRole("button", { name: "Approve" }).click();
    await t.event("agent.message", "tool todo result: The todo list is empty.").waitFor();
    // One card for the call: its result inside, its status the result's, and no "running" left beside it.
    expect(await t.card("todo").count()).to.equal(1);
    expect(await callStatus(first).innerText()).to.equal("completed");
    await first.locator(".result", { hasText: "The todo list is empty." }).waitFor();
    await first.locator(".decision", { hasText: "You allowed it." }).waitFor();

    await send("/tool todo {}");
    const second = t.card("todo").nth(1);
    await second.locator("input[name=reason]").fill("not on a Friday");
    await second.getByRole("button", { name: "Deny" }).click();
    await t.event("agent.message", "tool todo denied: the user denied the tool todo: not on a Friday").waitFor();
    expect(await callStatus(second).innerText()).to.equal("denied");
    await second.locator(".decision", { hasText: "You denied it: not on a Friday" }).waitFor();
    await t.snap("tool-cards");

    await send(`/tool lookup_order {"order":"A-1001"}`);
    const custom = t.card("lookup_order (custom)");
    await custom.getByRole("button", { name: "Approve" }).click();
    await custom.locator("textarea[name=result]").fill("A-1001 shipped on <i>Monday</i>");
    await custom.getByRole("button", { name: "Send result" }).click();
    await t.event("agent.message", "tool lookup_order result: A-1001 shipped on <i>Monday</i>").waitFor();
    expect(await callStatus(custom).innerText()).to.equal("completed");
    expect(await t.card("lookup_order").count()).to.equal(1);

    await send("/clarify Which color? | red | blue");
    await t.event("agent.clarify_request", "Which color?").getByRole("button", { name: "blue", exact: true }).click();
    await t.event("agent.message", "answer: blue").waitFor();
    await status("idle");
    const events = await settle(t.api(), session.id, 4);
    expect(events.filter((e) => e.type === "user.approval_response").map((e) => [e.payload.result, e.payload.reason])).to.deep.equal([
      ["allow", undefined],
      ["deny", "not on a Friday"],
      ["allow", undefined],
    ]);
    expect(events.find((e) => e.type === "user.clarify_result")?.payload.answer).to.equal("blue");
  });

  it("while a turn runs, offers to queue the message (Send disabled) or to steer, interrupts, and shows refusals as sentences", async () => {
    const agent = await createAgent(t.api(), { tools: [toolset(allow)] });
    const session = await createSession(t.api(), agent.id, { title: "Busy" });
    await open(session.id);
    const sendButton = page().getByRole("button", { name: "Send", exact: true });
    const queue = page().getByRole("button", { name: "Queue for when the turn ends" });
    expect(await queue.isHidden()).to.equal(true);
    await page().locator("textarea[name=message]").fill("/slow 600000 working");
    await sendButton.click();
    await status("running");
    expect(await sendButton.isDisabled()).to.equal(true);
    await page().locator("[data-role=composer-hint]", { hasText: "Queue your message" }).waitFor();
    await page().locator("textarea[name=message]").fill("mind the tone");
    await page().getByRole("button", { name: "Steer this turn" }).click();
    await t.event("user.steer", "mind the tone").waitFor();
    await page().locator("textarea[name=message]").fill("next one");
    await queue.click();
    await t.event("user.message", "next one").locator(".badge", { hasText: "queued" }).waitFor();
    await t.snap("composer-running");
    await page().getByRole("button", { name: "Interrupt" }).click();
    // The interrupted turn ends; the queued message starts its own.
    await t.event("agent.message", "echo: next one").waitFor();
    await status("idle");
    expect(await sendButton.isEnabled()).to.equal(true);

    // Archived elsewhere while shown: the refusal is a sentence, not the API's JSON or its status.
    expect((await t.api().post(`/v1/sessions/${session.id}/archive`)).status).to.equal(200);
    await page().locator("textarea[name=message]").fill("still there?");
    await sendButton.click();
    const problem = page().locator(".composer .problem");
    await problem.filter({ hasText: /^Not now: / }).waitFor();
    expect(await problem.innerText()).not.to.match(/[{}]|409|invalid_state/);
  });

  it("after a dropped connection, resumes with Last-Event-ID: nothing missed, nothing twice", async () => {
    const agent = await createAgent(t.api());
    const session = await createSession(t.api(), agent.id, { title: "Resumed" });
    await sendText(t.api(), session.id, "first");
    await settle(t.api(), session.id, 1);
    await open(session.id);
    await sendText(t.api(), session.id, "second");
    await t.event("agent.message", "echo: second").waitFor();

    t.server().dropConnections();
    await page().locator("[data-role=stream-state]", { hasText: "reconnecting" }).waitFor();
    await sendText(t.api(), session.id, "third");
    await t.event("agent.message", "echo: third").waitFor();
    await page().locator("[data-role=stream-state]", { hasText: "live" }).waitFor();
    for (const text of ["echo: first", "echo: second", "echo: third"]) expect(await t.event("agent.message", text).count(), text).to.equal(1);
    const resumed = t.tab().requests.filter((r) => r.url.includes("/events/stream") && r.headers["last-event-id"]);
    expect(resumed.length).to.be.greaterThan(0);
  });
  it("a fork says which session it was forked from, and at which sequence, with a link to it", async () => {
    const agent = await createAgent(t.api());
    const session = await createSession(t.api(), agent.id, { title: "Origin" });
    await sendText(t.api(), session.id, "before the fork");
    const events = await settle(t.api(), session.id, 1);
    const fork = await t.api().post(`/v1/sessions/${session.id}/fork`, { title: "Branch" });
    expect(fork.status).to.equal(201);
    await open(fork.body.id);
    await t.event("agent.message", "echo: before the fork").waitFor();
    const origin = page().locator("[data-role=forked-from]");
    expect(await origin.innerText()).to.equal(`forked from ${session.id} at sequence ${events.length}`);
    await origin.getByRole("link").click();
    await page().locator("h2", { hasText: "Origin" }).waitFor();
    expect(await page().locator("[data-role=forked-from]").count()).to.equal(0);

    // The page's own Fork button: a fork of the whole history, opened at once.
    await page().getByRole("button", { name: "Fork", exact: true }).click();
    await page()
      .locator("[data-role=forked-from]", { hasText: `forked from ${session.id} at sequence ${events.length}` })
      .waitFor();
    await t.event("agent.message", "echo: before the fork").waitFor();
    expect(page().url()).to.not.contain(session.id);
  });
});
