import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { findChromium, launch, openTab, screenshotOnFailure, type Tab } from "./support/browser.js";
import { createAgent, createSession } from "./support/api.js";
import { allow, toolset } from "./tools-cases.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { sendText, settle } from "./support/sessions.js";

/** The web console end to end, in headless Chromium against a real server. */
describe("the web console in a browser", function () {
  let server: TestServer;
  let browser: Browser;
  let tab: Tab | undefined;
  let key: string;
  let api: Client;

  before(async function () {
    // Installing Debian's package on a machine without it takes minutes.
    this.timeout(900_000);
    const chromium = findChromium();
    if (!chromium) {
      process.stderr.write("tests: no Chromium here and none could be installed (scripts/chromium.sh): the console's browser tests are skipped\n");
      this.skip();
    }
    server = await startServer();
    browser = await launch(chromium);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    key = await server.newKey();
    api = client(server.url, key);
    tab = await openTab(browser, server.url);
    tab.page.setDefaultTimeout(15_000);
  });
  afterEach(async function () {
    await screenshotOnFailure(this.currentTest, tab);
    const seen = tab!;
    await seen.context.close();
    // The key travels in a header, never in an address; and every API answer kept to the document.
    for (const r of seen.requests) expect(r.url, "a requested URL").not.to.include(key);
    expect(seen.problems).to.deep.equal([]);
  });

  const page = (): Page => tab!.page;
  const event = (type: string, text?: string | RegExp) => {
    const line = page().locator(`li.event[data-type="${type}"]:not(.draft)`);
    return text === undefined ? line : line.filter({ hasText: text });
  };

  async function signIn(): Promise<void> {
    await page().goto("/console");
    await page().locator("[data-role=ready]").waitFor({ state: "attached" });
    await page().locator("input[name=api-key]").fill(key);
    await page().locator("form.signin button[type=submit]").click();
    await page().locator("table[aria-label=Agents]").waitFor();
  }

  async function openSession(title: string): Promise<void> {
    await page().getByRole("button", { name: "Sessions", exact: true }).click();
    await page().getByRole("button", { name: title, exact: true }).click();
    await page().locator("[data-role=stream-state]", { hasText: "live" }).waitFor();
  }

  it("signs in with a key held in sessionStorage, lists agents and sessions, filters by agent, and signs out", async () => {
    const hostile = `<img src=x onerror="window.__xss=1">Bot`;
    const agent = await createAgent(api, { name: hostile });
    const other = await createAgent(api, { name: "Other agent" });
    await createSession(api, agent.id, { title: "First chat" });
    await createSession(api, other.id, { title: "Other chat" });

    await page().goto("/console");
    await page().locator("input[name=api-key]").fill("not-a-key");
    await page().locator("form.signin button[type=submit]").click();
    await page().locator("form.signin .problem", { hasText: "refused" }).waitFor();

    await signIn();
    // Shown as text, never parsed: no element was made from the name, and its script never ran.
    await page().locator("table[aria-label=Agents] button", { hasText: hostile }).waitFor();
    expect(await page().locator("main img").count()).to.equal(0);
    expect(await page().evaluate(() => (globalThis as { __xss?: number }).__xss)).to.equal(undefined);
    expect(await page().evaluate("Object.values(sessionStorage)")).to.deep.equal([key]);
    expect((await tab!.context.cookies()).length).to.equal(0);

    await page().reload();
    await page().locator("table[aria-label=Agents]").waitFor();

    await page().getByRole("button", { name: "Sessions", exact: true }).click();
    await page().getByRole("button", { name: "Other chat", exact: true }).waitFor();
    await page().locator(`select[name=agent] option[value="${agent.id}"]`).waitFor({ state: "attached" });
    await page().locator("select[name=agent]").selectOption(agent.id);
    await page().getByRole("button", { name: "First chat", exact: true }).waitFor();
    expect(await page().getByRole("button", { name: "Other chat", exact: true }).count()).to.equal(0);

    await page().locator("[data-role=sign-out]").click();
    await page().locator("input[name=api-key]").waitFor();
    expect(await page().evaluate("sessionStorage.length")).to.equal(0);
    await page().reload();
    await page().locator("input[name=api-key]").waitFor();
  });

  it("sends a message and shows the answer as it streams, with the key in a header only", async () => {
    const agent = await createAgent(api);
    const session = await createSession(api, agent.id);
    await signIn();
    await openSession("(untitled)");
    const text = `Hello <b>there</b> <script>window.__xss=1</script>`;
    await page().locator("textarea[name=message]").fill(text);
    await page().getByRole("button", { name: "Send", exact: true }).click();
    // Only the stream brings the agent's answer and the generated title.
    await event("agent.message", `echo: ${text}`).waitFor();
    await page().locator("[data-role=session-status]", { hasText: "idle" }).waitFor();
    await page().locator("h2", { hasText: "Hello" }).waitFor();
    expect(await page().locator("main b, main script").count()).to.equal(0);
    expect(await page().evaluate(() => (globalThis as { __xss?: number }).__xss)).to.equal(undefined);
    const stream = tab!.requests.find((r) => r.url.includes(`/v1/sessions/${session.id}/events/stream`));
    expect(stream?.headers["x-api-key"]).to.equal(key);
    // Read by the client package's stream, loaded as the page's import map says.
    const loaded = tab!.requests.map((r) => new URL(r.url).pathname);
    expect(loaded).to.include.members(["/console/assets/client/event-stream.js", "/console/assets/vendor/eventsource-parser.js"]);
  });

  it("reads a history longer than a page page by page, then goes live after it", async () => {
    const agent = await createAgent(api);
    const session = await createSession(api, agent.id, { title: "Long" });
    // Queued prompts run one turn each: 26 turns leave more than 100 durable events.
    for (let i = 1; i <= 26; i++) expect((await sendText(api, session.id, `message ${i}`, "when_idle")).status).to.equal(202);
    const events = await settle(api, session.id, 26, 60_000);
    expect(events.length).to.be.greaterThan(100);
    await signIn();
    await openSession("Long");
    for (const i of [1, 26]) await event("agent.message", new RegExp(`echo: message ${i}$`)).waitFor();
    expect(await page().locator("li.event").count()).to.equal(events.length);
    const pages = tab!.requests.filter((r) => r.url.includes(`/v1/sessions/${session.id}/events?`)).map((r) => new URL(r.url).searchParams.get("after"));
    expect(pages).to.deep.equal(["0", "100"]);
    const stream = tab!.requests.find((r) => r.url.includes("/events/stream"));
    expect(new URL(stream!.url).searchParams.get("after")).to.equal(String(events.at(-1).sequence));
  });

  it("approves a tool call, returns a custom tool's result and answers a question", async () => {
    const agent = await createAgent(api, {
      tools: [
        toolset(allow),
        {
          type: "custom_tool",
          name: "lookup_order",
          description: "Finds an order",
          input_schema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
        },
      ],
    });
    const session = await createSession(api, agent.id, { title: "Orders" });
    await signIn();
    await openSession("Orders");

    await page().locator("textarea[name=message]").fill(`/tool lookup_order {"order":"A-1001"}`);
    await page().getByRole("button", { name: "Send", exact: true }).click();
    await page().locator("[data-role=session-status]", { hasText: "waiting_on_human" }).waitFor();
    await event("agent.approval_request", "lookup_order").getByRole("button", { name: "Approve" }).click();
    const use = event("agent.custom_tool_use", "lookup_order");
    await use.locator("textarea[name=result]").fill("A-1001 shipped on <i>Monday</i>");
    await use.getByRole("button", { name: "Send result" }).click();
    await event("agent.message", "tool lookup_order result: A-1001 shipped on <i>Monday</i>").waitFor();
    await event("agent.approval_request").locator("text=No longer waiting.").waitFor();

    await page().locator("textarea[name=message]").fill("/clarify Which color? | red | blue");
    await page().getByRole("button", { name: "Send", exact: true }).click();
    await event("agent.clarify_request", "Which color?").getByRole("button", { name: "blue", exact: true }).click();
    await event("agent.message", "answer: blue").waitFor();
    await page().locator("[data-role=session-status]", { hasText: "idle" }).waitFor();

    const events = await settle(api, session.id, 3);
    expect(events.find((e) => e.type === "user.approval_response")?.payload.result).to.equal("allow");
    expect(events.find((e) => e.type === "user.clarify_result")?.payload.answer).to.equal("blue");
  });

  it("after a dropped connection, resumes with Last-Event-ID: nothing missed, nothing twice", async () => {
    const agent = await createAgent(api);
    const session = await createSession(api, agent.id, { title: "Resumed" });
    await sendText(api, session.id, "first");
    await settle(api, session.id, 1);
    await signIn();
    await openSession("Resumed");
    await sendText(api, session.id, "second");
    await event("agent.message", "echo: second").waitFor();

    server.dropConnections();
    await page().locator("[data-role=stream-state]", { hasText: "reconnecting" }).waitFor();
    await sendText(api, session.id, "third");
    await event("agent.message", "echo: third").waitFor();
    await page().locator("[data-role=stream-state]", { hasText: "live" }).waitFor();
    for (const text of ["echo: first", "echo: second", "echo: third"]) expect(await event("agent.message", text).count(), text).to.equal(1);
    const resumed = tab!.requests.filter((r) => r.url.includes("/events/stream") && r.headers["last-event-id"]);
    expect(resumed.length).to.be.greaterThan(0);
  });
});
