/** The worker's MCP connections against real servers: reuse, fallback to SSE, bounds, and failures as results. Needs no Redis or MongoDB. */
import { expect } from "chai";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isAppError } from "../src/errors.js";
import { McpConnections, type McpEndpoint } from "../src/vaults/mcp/mcp-connections.js";
import { guardedFetch, OutboundPolicy } from "../src/outbound/outbound.js";
import { LOOPBACK } from "./support/server.js";
import { FAIL_TEXT, startBearerServer, startEverythingServer, startSseOnlyServer, type BearerServer } from "./support/mcp-servers.js";
import { secret } from "./support/secrets.js";

describe("MCP connections", () => {
  const token = secret();
  const guarded = guardedFetch(new OutboundPolicy([LOOPBACK]));
  after(async () => guarded.close());
  let bearer: BearerServer;
  let pool: McpConnections;
  before(async () => {
    bearer = await startBearerServer({ token });
  });
  after(async () => bearer.close());
  afterEach(async () => pool?.close());

  const endpoint = (extra: Partial<McpEndpoint> = {}): McpEndpoint => ({
    name: "tools",
    url: bearer.url,
    owner: "org-a",
    authorization: `Bearer ${token}`,
    ...extra,
  });

  it("lists a server's tools once within the cache's lifetime and calls them over one connection", async () => {
    pool = new McpConnections({ fetch: guarded });
    const tools = await pool.listTools(endpoint());
    expect(tools.map((t) => t.name).sort()).to.deep.equal(["add", "echo", "fail", "slow"]);
    expect(tools.find((t) => t.name === "add")!.inputSchema).to.have.property("properties");
    const seen = bearer.auth.accepted;
    await pool.listTools(endpoint());
    expect(bearer.auth.accepted, "the second list is served from cache").to.equal(seen);
    expect(await pool.callTool(endpoint(), "add", { a: 2, b: 3 })).to.deep.equal({ ok: true, text: "5" });
    expect(await pool.callTool(endpoint(), "echo", { text: "hi" })).to.deep.equal({ ok: true, text: "hi" });
    expect(pool.size).to.equal(1);
    expect(bearer.auth.headers.at(-1)).to.equal(`Bearer ${token}`);
  });

  it("a tool's error result and a refused token come back as error results; listing with a refused token throws upstream_failed", async () => {
    pool = new McpConnections({ fetch: guarded });
    expect(await pool.callTool(endpoint(), "fail", {})).to.deep.equal({ ok: false, text: FAIL_TEXT });
    const wrong = endpoint({ authorization: `Bearer ${secret()}`, credentialKey: "wrong" });
    const err = await pool.listTools(wrong).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAppError(err, "upstream_failed"), String(err)).to.equal(true);
    expect((err as Error).message).to.equal("the MCP server tools could not be used (HTTP 401)");
    const called = await pool.callTool(wrong, "echo", { text: "x" });
    expect(called).to.deep.equal({ ok: false, text: "the MCP server tools could not be used (HTTP 401)", unauthorized: true });
  });

  it("an unreachable server and a call that outlives its timeout are error results", async () => {
    pool = new McpConnections({ fetch: guarded, timeoutMs: 300 });
    const gone = await startBearerServer({ token });
    const url = gone.url;
    await gone.close();
    const unreachable = await pool.callTool({ name: "gone", url, owner: "org-a", authorization: `Bearer ${token}` }, "echo", { text: "x" });
    expect(unreachable.ok).to.equal(false);
    expect(unreachable.text).to.match(/^the MCP server gone /);
    const slow = await pool.callTool(endpoint(), "slow", { ms: 2000 });
    expect(slow).to.deep.equal({ ok: false, text: "the MCP server tools did not answer in time" });
    expect(await pool.callTool(endpoint(), "echo", { text: "after" }), "a new connection after the failed one").to.deep.equal({ ok: true, text: "after" });
  });

  it("falls back to the SSE transport for a server that refuses Streamable HTTP, and works with the reference server", async () => {
    pool = new McpConnections({ fetch: guarded });
    const [sse, everything] = await Promise.all([startSseOnlyServer(), startEverythingServer()]);
    try {
      const legacy = { name: "legacy", url: sse.url, owner: "org-a" };
      expect((await pool.listTools(legacy)).map((t) => t.name)).to.include("echo");
      expect(await pool.callTool(legacy, "echo", { text: "over sse" })).to.deep.equal({ ok: true, text: "over sse" });
      const reference = { name: "everything", url: everything.url, owner: "org-a" };
      expect((await pool.listTools(reference)).map((t) => t.name)).to.include("get-sum");
      expect(await pool.callTool(reference, "echo", { message: "hi" })).to.deep.equal({ ok: true, text: "Echo: hi" });
    } finally {
      await pool.close();
      await Promise.all([sse.close(), everything.close()]);
    }
  });

  it("is bounded: the least recently used connection closes first, an idle one closes by itself, a rotated credential gets its own", async () => {
    pool = new McpConnections({ fetch: guarded, capacity: 2, idleMs: 100 });
    await pool.listTools(endpoint({ credentialKey: "v1" }));
    await pool.listTools(endpoint({ credentialKey: "v2" }));
    expect(pool.size).to.equal(2);
    await pool.listTools(endpoint({ credentialKey: "v3" }));
    expect(pool.size).to.equal(2);
    await new Promise((r) => setTimeout(r, 250));
    expect(pool.size, "idle connections closed").to.equal(0);
  });

  it("the legacy SSE transport sends the credential on the stream's GET and on every POST", async () => {
    pool = new McpConnections({ fetch: guarded });
    const sse = await startSseOnlyServer({ token });
    try {
      const legacy = { name: "legacy", url: sse.url, owner: "org-a", authorization: `Bearer ${token}` };
      expect(await pool.callTool(legacy, "echo", { text: "with a token" })).to.deep.equal({ ok: true, text: "with a token" });
      expect(sse.auth.refused).to.equal(0);
      expect(sse.auth.accepted, "the GET and the POSTs").to.be.at.least(3);
      const refused = await pool.callTool({ ...legacy, authorization: `Bearer ${secret()}`, credentialKey: "wrong" }, "echo", { text: "x" });
      expect(refused).to.deep.equal({ ok: false, text: "the MCP server legacy could not be used (HTTP 401)", unauthorized: true });
    } finally {
      await pool.close();
      await sse.close();
    }
  });

  it("connections are per owner, a server's error answer keeps the connection, and secrets replaced retire the old one", async () => {
    pool = new McpConnections({ fetch: guarded });
    await pool.listTools(endpoint());
    await pool.listTools(endpoint({ owner: "org-b" }));
    expect(pool.size, "another organization gets a connection of its own").to.equal(2);
    // The test server has no resources: a JSON-RPC error (method not found), not a failed connection.
    const bad = await pool.read(endpoint(), "list_resources", {});
    expect(bad).to.deep.equal({ ok: false, text: "the MCP server tools answered with an error: MCP error -32601: Method not found" });
    expect(pool.size, "the connection stays for the other requests on it").to.equal(2);
    pool.retireOthers(endpoint({ credentialKey: "rotated" }));
    expect(pool.size, "org-a's connection with the old secrets is closed, org-b's stays").to.equal(1);
  });

  it("a server that never finishes opening (an SSE stream that never names its endpoint) fails in time and blocks nothing", async () => {
    const hung = createServer((req, res) => {
      if (req.method === "POST") return void res.writeHead(405).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      const ping = setInterval(() => res.write(": ping\n\n"), 50);
      res.on("close", () => clearInterval(ping));
    });
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/sse`;
    pool = new McpConnections({ fetch: guarded, timeoutMs: 300, capacity: 1 });
    try {
      const stuck = { name: "stuck", url, owner: "org-a" };
      const listed = await pool.listTools(stuck).then(
        () => null,
        (e: unknown) => e,
      );
      expect((listed as Error).message).to.equal("the MCP server stuck did not answer in time");
      const probed = await pool.probe(stuck).then(
        () => null,
        (e: unknown) => e,
      );
      expect((probed as Error).message).to.equal("the MCP server stuck did not answer in time");
      expect(await pool.callTool(endpoint(), "echo", { text: "next" }), "the pool still serves others").to.deep.equal({ ok: true, text: "next" });
    } finally {
      await pool.close();
      hung.closeAllConnections();
      await new Promise((resolve) => hung.close(resolve));
    }
  });
});
