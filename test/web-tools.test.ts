/**
 * The web toolset through sessions: web_search against a SearXNG stand-in, web_extract reading pages
 * as text within its bounds, and the outbound guard refusing loopback, metadata and redirected
 * destinations (by address, by DNS name and on a redirect).
 */
import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { client, otherDeployment, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, sendText, settle } from "./support/sessions.js";
import { outputText } from "./support/tool-calls.js";
import { allow, toolset } from "./tools-cases.js";

const PAGE = `<!doctype html><html><head><title>Refunds</title><style>body{color:red}</style><script>var secretScript = 1;</script></head>
<body><h1>Refund policy</h1><p>Refunds within <b>30 days</b>, see <a href="/terms">the terms</a>.</p><img src="x.png"></body></html>`;

async function listen(handler: Parameters<typeof createServer>[1], host = "127.0.0.1"): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, origin: `http://${host}:${(server.address() as AddressInfo).port}` };
}

describe("web tools", () => {
  let pages: { server: Server; origin: string };
  let searx: { server: Server; origin: string };
  const searches: URLSearchParams[] = [];
  let server: TestServer;
  let api: Client;
  const web = { agent: { tools: [toolset(allow)] } };

  before(async () => {
    pages = await listen((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/page.html") return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
      if (path === "/notes.txt") return void res.writeHead(200, { "content-type": "text/plain" }).end("plain notes");
      if (path === "/image.png") return void res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(64));
      if (path === "/big.txt") return void res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(3 * 1024 * 1024));
      if (path === "/to-other-host")
        return void res.writeHead(302, { location: `http://127.0.0.2:${(pages.server.address() as AddressInfo).port}/page.html` }).end();
      res.writeHead(404).end("no");
    });
    searx = await listen((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      searches.push(url.searchParams);
      const q = url.searchParams.get("q") ?? "";
      const results = Array.from({ length: 8 }, (_, i) => ({ url: `https://example.com/${i}`, title: `Result ${i} for ${q}`, content: `snippet ${i}` }));
      res.writeHead(url.pathname === "/search" ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify({ results }));
    });
    server = await startServer({ WEB_SEARCH_PROVIDER: "searxng", WEB_SEARCH_URL: searx.origin, WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}` });
    api = client(server.url, await server.newKey());
  });
  after(async () => {
    await server?.close();
    for (const s of [pages, searx]) s?.server.close();
  });

  const run = async (line: string, api_ = api) => {
    const { sessionId } = await createSession(api_, web);
    await sendText(api_, sessionId, line);
    const done = await settle(api_, sessionId, 1);
    return done.find((e) => e.type === "agent.tool_result").payload;
  };

  it("web_search: the backend's results, as many as asked, each with title, URL and snippet", async () => {
    const result = await run('/tool web_search {"query":"refund policy","limit":3}');
    expect(result.is_error).to.equal(false);
    expect(outputText(result)).to.equal(
      [0, 1, 2].map((i) => `${i + 1}. Result ${i} for refund policy\n   https://example.com/${i}\n   snippet ${i}`).join("\n"),
    );
    expect(searches.at(-1)!.get("format")).to.equal("json");
  });

  it("bad input is a tool error naming the problem", async () => {
    expect(outputText(await run('/tool web_search {"limit":3}'))).to.equal("invalid input: query: is required");
    expect(outputText(await run('/tool web_search {"query":"x","limit":50}'))).to.equal("invalid input: limit: must be <= 20");
    const six = JSON.stringify({ urls: Array.from({ length: 6 }, (_, i) => `${pages.origin}/${i}`) });
    expect(outputText(await run(`/tool web_extract ${six}`))).to.equal("invalid input: urls: must have at most 5 items");
    expect(outputText(await run('/tool web_extract {"url":"x"}'))).to.equal("invalid input: urls: is required; url: is not allowed");
  });

  it("web_extract: HTML as readable text (no script or style), plain text as is, failures per page", async () => {
    const urls = [`${pages.origin}/page.html`, `${pages.origin}/notes.txt`, `${pages.origin}/missing`, `${pages.origin}/image.png`, "not a url"];
    const result = await run(`/tool web_extract ${JSON.stringify({ urls })}`);
    expect(result.is_error).to.equal(false);
    const body = outputText(result);
    expect(body).to.include(`## ${pages.origin}/page.html\nRefund policy\n\nRefunds within 30 days, see the terms.`);
    expect(body).to.not.match(/secretScript|color:red|x\.png/);
    expect(body).to.include(`## ${pages.origin}/notes.txt\nplain notes`);
    expect(body).to.include(`## ${pages.origin}/missing\n[HTTP 404]`);
    expect(body).to.include(`## ${pages.origin}/image.png\n[unsupported content type image/png: only text and HTML pages are read]`);
    expect(body).to.include("## not a url\n[not a valid absolute URL]");
  });

  it("web_extract is bounded: a large page is cut", async () => {
    const body = outputText(await run(`/tool web_extract ${JSON.stringify({ urls: [`${pages.origin}/big.txt`] })}`));
    expect(body.length).to.be.below(25_000);
    expect(body).to.match(/\[cut: /);
  });

  it("the outbound guard: a redirect to another loopback address, the metadata address and a failed page all fail the call", async () => {
    const urls = [`${pages.origin}/to-other-host`, "http://169.254.169.254/latest/meta-data/"];
    const result = await run(`/tool web_extract ${JSON.stringify({ urls })}`);
    expect(result.is_error).to.equal(true);
    expect(outputText(result)).to.equal(
      `## ${pages.origin}/to-other-host\n[refused: 127.0.0.2 is a loopback address]\n\n## http://169.254.169.254/latest/meta-data/\n[refused: 169.254.169.254 is a link-local address (cloud metadata service)]`,
    );
  });

  it("without the allow-list, loopback is refused by address and by name", async () => {
    const strict = await startServer({
      REDIS_KEY_PREFIX: otherDeployment("strict"),
      OUTBOUND_ALLOWED_NETWORKS: "",
      WORKSPACE_ROOT: `/tmp/agent-sessions-test-ws-${process.pid}`,
    });
    try {
      const tenant = client(strict.url, await strict.newKey());
      const port = (pages.server.address() as AddressInfo).port;
      const result = await run(`/tool web_extract ${JSON.stringify({ urls: [`${pages.origin}/page.html`, `http://localhost:${port}/page.html`] })}`, tenant);
      expect(outputText(result)).to.equal(
        `## ${pages.origin}/page.html\n[refused: 127.0.0.1 is a loopback address]\n\n## http://localhost:${port}/page.html\n[refused: localhost resolves to a loopback address]`,
      );
    } finally {
      await strict.close();
    }
  });

  it("the mock model answers with the result, as for any tool", async () => {
    const { sessionId } = await createSession(api, web);
    await sendText(api, sessionId, `/tool web_extract ${JSON.stringify({ urls: [`${pages.origin}/notes.txt`] })}`);
    expect(agentTexts(await settle(api, sessionId, 1))).to.deep.equal([`tool web_extract result: ## ${pages.origin}/notes.txt\nplain notes`]);
  });
});
