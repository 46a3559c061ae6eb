/** The worker's MCP connections against real servers: reuse, fallback to SSE, bounds, and failures as results. Needs no Redis or MongoDB. */
import { expect } from "chai";
import { isAppError } from "../src/errors.js";
import { McpConnections, type McpEndpoint } from "../src/tools/mcp-connections.js";
import { FAIL_TEXT, startBearerServer, startEverythingServer, startSseOnlyServer, type BearerServer } from "./support/mcp-servers.js";
import { secret } from "./support/secrets.js";

describe("MCP connections", () => {
  const token = secret();
  let bearer: BearerServer;
  let pool: McpConnections;
  before(async () => {
    bearer = await startBearerServer({ token });
  });
  after(async () => bearer.close());
  afterEach(async () => pool?.close());

  const endpoint = (extra: Partial<McpEndpoint> = {}): McpEndpoint => ({ name: "tools", url: bearer.url, authorization: `Bearer ${token}`, ...extra });

  it("lists a server's tools once within the cache's lifetime and calls them over one connection", async () => {
    pool = new McpConnections();
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
    pool = new McpConnections();
    expect(await pool.callTool(endpoint(), "fail", {})).to.deep.equal({ ok: false, text: FAIL_TEXT });
    const wrong = endpoint({ authorization: `Bearer ${secret()}`, credentialKey: "wrong" });
    const err = await pool.listTools(wrong).then(() => null, (e: unknown) => e);
    expect(isAppError(err, "upstream_failed"), String(err)).to.equal(true);
    expect((err as Error).message).to.equal("the MCP server tools could not be used (HTTP 401)");
    const called = await pool.callTool(wrong, "echo", { text: "x" });
    expect(called).to.deep.equal({ ok: false, text: "the MCP server tools could not be used (HTTP 401)", unauthorized: true });
  });

  it("an unreachable server and a call that outlives its timeout are error results", async () => {
    pool = new McpConnections({ timeoutMs: 300 });
    const gone = await startBearerServer({ token });
    const url = gone.url;
    await gone.close();
    const unreachable = await pool.callTool({ name: "gone", url, authorization: `Bearer ${token}` }, "echo", { text: "x" });
    expect(unreachable.ok).to.equal(false);
    expect(unreachable.text).to.match(/^the MCP server gone /);
    const slow = await pool.callTool(endpoint(), "slow", { ms: 2000 });
    expect(slow).to.deep.equal({ ok: false, text: "the MCP server tools did not answer in time" });
    expect(await pool.callTool(endpoint(), "echo", { text: "after" }), "a new connection after the failed one").to.deep.equal({ ok: true, text: "after" });
  });

  it("falls back to the SSE transport for a server that refuses Streamable HTTP, and works with the reference server", async () => {
    pool = new McpConnections();
    const [sse, everything] = await Promise.all([startSseOnlyServer(), startEverythingServer()]);
    try {
      const legacy = { name: "legacy", url: sse.url };
      expect((await pool.listTools(legacy)).map((t) => t.name)).to.include("echo");
      expect(await pool.callTool(legacy, "echo", { text: "over sse" })).to.deep.equal({ ok: true, text: "over sse" });
      const reference = { name: "everything", url: everything.url };
      expect((await pool.listTools(reference)).map((t) => t.name)).to.include("get-sum");
      expect(await pool.callTool(reference, "echo", { message: "hi" })).to.deep.equal({ ok: true, text: "Echo: hi" });
    } finally {
      await pool.close();
      await Promise.all([sse.close(), everything.close()]);
    }
  });

  it("is bounded: the least recently used connection closes first, an idle one closes by itself, a rotated credential gets its own", async () => {
    pool = new McpConnections({ capacity: 2, idleMs: 100 });
    await pool.listTools(endpoint({ credentialKey: "v1" }));
    await pool.listTools(endpoint({ credentialKey: "v2" }));
    expect(pool.size).to.equal(2);
    await pool.listTools(endpoint({ credentialKey: "v3" }));
    expect(pool.size).to.equal(2);
    await new Promise((r) => setTimeout(r, 250));
    expect(pool.size, "idle connections closed").to.equal(0);
  });
});
