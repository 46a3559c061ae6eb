/**
 * The console's browser tests' setup: one server and one Chromium per file, a fresh tab (and a fresh
 * organization key) per test, the page's requests and answers checked after each test (no URL holds the
 * key; every API answer kept to the document), and a screenshot on failure.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import { findChromium, keepScreenshot, launch, openTab, screenshotOnFailure, type Tab } from "./browser.js";
import { client, startServer, type Client, type TestServer } from "./server.js";

export interface ConsoleTest {
  server(): TestServer;
  api(): Client;
  key(): string;
  tab(): Tab;
  page(): Page;
  /** A line of the log by event type (drafts aside), with the text it holds. */
  event(type: string, text?: string | RegExp): ReturnType<Page["locator"]>;
  /** The card of a tool call, by the tool's name. */
  card(tool: string): ReturnType<Page["locator"]>;
  /** Opens the console at `hash` and signs in there; the view it names is shown. */
  signIn(hash?: string): Promise<void>;
  snap(name: string): Promise<void>;
}

/** Registers the hooks in the calling `describe`. */
export function consoleTest(): ConsoleTest {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launch>>;
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
    for (const r of seen.requests) expect(r.url, "a requested URL").not.to.include(key);
    expect(seen.problems).to.deep.equal([]);
  });

  const page = () => tab!.page;
  return {
    server: () => server,
    api: () => api,
    key: () => key,
    tab: () => tab!,
    page,
    event(type, text) {
      const line = page().locator(`li.event[data-type="${type}"]:not(.draft)`);
      return text === undefined ? line : line.filter({ hasText: text });
    },
    card: (tool) =>
      page()
        .locator("li.tool-card")
        .filter({ has: page().locator(".label", { hasText: `Tool: ${tool}` }) }),
    async signIn(hash = "") {
      await page().goto(`/console/${hash}`);
      await page().locator("[data-role=ready]").waitFor({ state: "attached" });
      await page().locator("input[name=api-key]").fill(key);
      await page().locator("form.signin button[type=submit]").click();
      await page().locator("form.signin").waitFor({ state: "detached" });
    },
    snap: (name) => keepScreenshot(tab!, name),
  };
}
