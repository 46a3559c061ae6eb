/**
 * Headless Chromium (Debian's package, never a downloaded build) driven by playwright-core, for the
 * console's end-to-end tests. Every request a page makes is recorded (its URL and headers), every API
 * response it receives is checked against the served document like the test client's, a failed
 * test leaves a screenshot under test-artifacts/, and `keepScreenshot` keeps what a step showed under
 * test-artifacts/console/ (git-ignored), for a person to look at after a run.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { projectRoot } from "../../src/paths.js";
import { checkResponse } from "./contract.js";

/** Flags this machine's closed network needs: nothing may call home or wait on the network at start. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let executable: string | null | undefined;

/**
 * Debian's Chromium (`CHROMIUM_PATH`, default /usr/bin/chromium), installed by scripts/chromium.sh when
 * missing, as CI does; null when it is absent and cannot be installed here.
 */
export function findChromium(): string | null {
  if (executable !== undefined) return executable;
  try {
    const out = execFileSync("bash", [join(projectRoot, "scripts", "chromium.sh")], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
    executable = out.trim().split("\n").pop() || null;
  } catch {
    executable = null;
  }
  return executable;
}

/** Playwright gives each launch a fresh profile (`--user-data-dir` in a new temporary directory). */
export function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ARGS });
}

export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
}

/** A page in a context of its own (fresh storage), with what it requested and what broke the contract. */
export interface Tab {
  context: BrowserContext;
  page: Page;
  requests: Seen[];
  problems: string[];
}

export async function openTab(browser: Browser, baseUrl: string): Promise<Tab> {
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  const requests: Seen[] = [];
  const problems: string[] = [];
  page.on("request", (req) => {
    void req.allHeaders().then((headers) => requests.push({ method: req.method(), url: req.url(), headers }));
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("response", (res) => {
    const url = new URL(res.url());
    if (url.origin !== baseUrl) return;
    const method = res.request().method();
    const type = res.headers()["content-type"] ?? "";
    // A stream's body never ends while the page lives: its status and type are checked, not its frames.
    const body = type.startsWith("application/json") ? res.json() : Promise.resolve(undefined);
    void body
      .then((parsed) => checkResponse(baseUrl, method, url.pathname, { status: res.status(), headers: new Headers(res.headers()) }, parsed))
      .catch((err: unknown) => {
        // A body the page stopped reading (a view closed, a stream aborted) cannot be checked.
        if (!/closed|detached|No resource/i.test(String(err))) problems.push(String(err));
      });
  });
  return { context, page, requests, problems };
}

/** Saves what the page showed when a test failed, named after the test. */
export async function screenshotOnFailure(test: Mocha.Test | undefined, tab: Tab | undefined): Promise<void> {
  if (!test || !tab || test.state !== "failed") return;
  const dir = join(projectRoot, "test-artifacts");
  mkdirSync(dir, { recursive: true });
  const name = test
    .fullTitle()
    .replace(/[^A-Za-z0-9]+/g, "-")
    .slice(0, 120);
  await tab.page.screenshot({ path: join(dir, `${name}.png`), fullPage: true }).catch(() => undefined);
}

/** Keeps what the page shows now as `test-artifacts/console/<name>.png`, whether the test passes or not. */
export async function keepScreenshot(tab: Tab, name: string): Promise<void> {
  const dir = join(projectRoot, "test-artifacts", "console");
  mkdirSync(dir, { recursive: true });
  await tab.page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
