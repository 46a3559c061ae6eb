import { expect } from "chai";
import { createHash } from "node:crypto";
import { client, startServer, type Client, type TestServer } from "./support/server.js";

/** The console's static files: types, caching, the page's policy, and nothing else reachable. */
describe("the web console's files", () => {
  let server: TestServer;
  let open: Client;
  before(async () => {
    server = await startServer({ ROLE: "api" });
    open = client(server.url);
  });
  after(async () => server.close());

  const directives = (csp: string) =>
    new Map(
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );

  it("serves the page without a key, with a strict policy whose one inline script is the import map", async () => {
    const res = await open.get("/console");
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.equal("text/html; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).to.equal("nosniff");
    expect(res.headers.get("referrer-policy")).to.equal("no-referrer");
    expect(res.headers.get("cache-control")).to.equal("no-cache");
    const csp = directives(res.headers.get("content-security-policy")!);
    expect(csp.get("default-src")).to.deep.equal(["'none'"]);
    expect(csp.get("connect-src")).to.deep.equal(["'self'"]);
    expect(csp.get("style-src")).to.deep.equal(["'self'"]);
    expect(csp.get("form-action")).to.deep.equal(["'none'"]);
    expect(csp.get("frame-ancestors")).to.deep.equal(["'none'"]);
    expect(csp.get("require-trusted-types-for")).to.deep.equal(["'script'"]);
    const page = res.body as unknown as string;
    const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page)![1]!;
    const hash = createHash("sha256").update(importMap).digest("base64");
    expect(csp.get("script-src")).to.deep.equal(["'self'", `'sha256-${hash}'`]);
    // Every other script is a file of the console's own; no inline handler or style anywhere.
    expect(page.match(/<script\b[^>]*>/g)).to.deep.equal(['<script type="importmap">', '<script type="module" src="/console/assets/main.js">']);
    expect(page).not.to.match(/\son[a-z]+=|style=/i);
  });

  it("serves the modules, the client package's, its dependencies', and the stylesheet with their types", async () => {
    for (const [path, type] of [
      ["/console/assets/main.js", "text/javascript; charset=utf-8"],
      ["/console/assets/views/session.js", "text/javascript; charset=utf-8"],
      ["/console/assets/client/index.js", "text/javascript; charset=utf-8"],
      ["/console/assets/client/event-stream.js", "text/javascript; charset=utf-8"],
      ["/console/assets/vendor/eventsource-parser.js", "text/javascript; charset=utf-8"],
      ["/console/assets/vendor/openapi-fetch.js", "text/javascript; charset=utf-8"],
      ["/console/assets/console.css", "text/css; charset=utf-8"],
      ["/console/assets/icon.svg", "image/svg+xml"],
    ]) {
      const res = await open.get(path!);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get("content-type"), path).to.equal(type);
      expect(res.headers.get("x-content-type-options"), path).to.equal("nosniff");
    }
    const parser = await open.get("/console/assets/vendor/eventsource-parser.js");
    expect(parser.body).to.include("createParser");
  });

  it("serves every module the page's import map names, and maps every name a served module imports", async () => {
    const page = (await open.get("/console")).body as unknown as string;
    const imports = JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(page)![1]!).imports as Record<string, string>;
    expect(Object.keys(imports).sort()).to.deep.equal(["@agent-sessions/client", "eventsource-parser", "openapi-fetch"]);
    // From the console's entry, through every module it reaches, as the browser loads them.
    const seen = new Set<string>();
    const load = async (url: string): Promise<void> => {
      if (seen.has(url)) return;
      seen.add(url);
      const res = await open.get(url);
      expect(res.status, url).to.equal(200);
      expect(res.headers.get("content-type"), url).to.equal("text/javascript; charset=utf-8");
      const source = res.body as unknown as string;
      for (const [, specifier] of source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"/gm)) {
        const bare = !/^\.{0,2}\//.test(specifier!);
        expect(!bare || specifier! in imports, `${url} imports ${specifier}, which the import map does not name`).to.equal(true);
        await load(bare ? imports[specifier!]! : new URL(specifier!, `http://console${url}`).pathname);
      }
    };
    await load("/console/assets/main.js");
    for (const target of Object.values(imports)) expect(seen, target).to.include(target);
    expect(seen).to.include("/console/assets/client/event-stream.js");
  });

  it("redirects the root to the console, for GET and HEAD only", async () => {
    for (const method of ["GET", "HEAD"]) {
      const res = await fetch(`${server.url}/`, { method, redirect: "manual" });
      expect(res.status, method).to.equal(302);
      expect(res.headers.get("location"), method).to.equal("/console/");
    }
    expect((await open.post("/", {})).status).to.equal(401);
  });

  it("answers 304 to a request that holds the current version, for HEAD too", async () => {
    const first = await open.get("/console/assets/main.js");
    const etag = first.headers.get("etag")!;
    expect(etag).to.match(/^"[0-9a-f]{32}"$/);
    // As a browser revalidates (fetch would add `cache-control: no-cache`, which asks for a full answer).
    const again = await open.get("/console/assets/main.js", { headers: { "if-none-match": etag, "cache-control": "max-age=0" } });
    expect(again.status).to.equal(304);
    expect(again.body).to.equal(undefined);
    const head = await open.send("HEAD", "/console");
    expect(head.status).to.equal(200);
    expect(head.headers.get("content-security-policy")).to.include("default-src 'none'");
  });

  it("reaches nothing outside its files, and takes no other method", async () => {
    for (const path of [
      "/console/assets/nothing.js",
      "/console/assets/..%2f..%2fpackage.json",
      "/console/assets/main.js.map",
      "/console/assets/client/index.d.ts",
      "/console/assets/client/index.js.map",
      "/console/assets/client/../../package.json",
      "/console/assets/vendor/eventsource-parser.cjs",
      "/console/assets/types.ts",
      "/console/index.html",
    ]) {
      const res = await open.get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body.error, path).to.equal("not_found");
    }
    const post = await open.post("/console", {});
    expect(post.status).to.equal(405);
    expect(post.headers.get("allow")).to.equal("GET, HEAD");
  });

  it("is not an operation of the API's document", async () => {
    const doc = (await open.get("/v1/openapi.json")).body;
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/console"))).to.deep.equal([]);
  });
});
