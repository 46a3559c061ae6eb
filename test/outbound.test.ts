/** The SSRF guard on outbound requests, against real loopback servers. Needs no Redis or MongoDB, and no outside network. */
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MAX_RESPONSE_BYTES } from "../src/outbound/bounded-body.js";
import { guardedFetch, isOutboundRefused, OutboundPolicy, type GuardedFetch, type ResolvedAddress } from "../src/outbound/outbound.js";
import { collectGarbage } from "./support/gc.js";
import { startBearerServer, startSseOnlyServer } from "./support/mcp-servers.js";
import { startOutboundServer, type OutboundTestServer } from "./support/outbound-server.js";
import { secret } from "./support/secrets.js";

/** What `promise` rejects with (failing the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, "should have been rejected").to.be.instanceOf(Error);
  return err as Error;
}

async function refusalMessage(promise: Promise<unknown>): Promise<string> {
  const err = await rejection(promise);
  expect(isOutboundRefused(err), String(err)).to.equal(true);
  return err.message;
}

/** A resolver that knows only `answers` (called once per connection), so no real DNS is involved. */
function resolver(answers: Record<string, string[][]>) {
  const calls: Record<string, number> = {};
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    const n = (calls[hostname] = (calls[hostname] ?? 0) + 1);
    const list = answers[hostname] ?? [];
    return (list[Math.min(n, list.length) - 1] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, calls };
}

describe("Outbound fetch guard", () => {
  let a: OutboundTestServer;
  let b: OutboundTestServer;
  const opened: GuardedFetch[] = [];
  /** A guarded fetch closed after the test. */
  const fetchWith = (allowed: string[], resolve?: (host: string) => Promise<ResolvedAddress[]>): GuardedFetch => {
    const f = guardedFetch(new OutboundPolicy(allowed, { resolve }));
    opened.push(f);
    return f;
  };
  before(async () => {
    [a, b] = await Promise.all([startOutboundServer(), startOutboundServer()]);
  });
  after(async () => Promise.all([a.close(), b.close()]));
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((f) => f.close()));
    a.seen.length = b.seen.length = 0;
  });

  it("refuses a loopback server before sending anything; 127.0.0.1/32 in the allow-list lets it through", async () => {
    const refused = await refusalMessage(fetchWith([])(`${a.origin}/echo`));
    expect(refused).to.equal("refused: 127.0.0.1 is a loopback address");
    expect(a.seen, "nothing reached the server").to.have.length(0);
    const response = await fetchWith(["127.0.0.1/32"])(`${a.origin}/echo?x=1`, { headers: { authorization: "Bearer t" } });
    expect(response).to.be.instanceOf(Response);
    expect(response.status).to.equal(200);
    expect(response.url).to.equal(`${a.origin}/echo?x=1`);
    expect(response.redirected).to.equal(false);
    expect(await response.json()).to.include({ method: "GET", path: "/echo", authorization: "Bearer t" });
  });

  it("refuses a host name by what it resolves to: localhost", async () => {
    const refused = await refusalMessage(fetchWith([])(`http://localhost:${a.port}/echo`));
    expect(refused).to.equal("refused: localhost resolves to a loopback address");
    expect(a.seen).to.have.length(0);
  });

  it("connects to the address that was checked, and checks every new connection (DNS rebinding)", async () => {
    // Only the injected resolver knows this name: reaching the server proves the socket used its answer.
    const dns = resolver({ "mcp.internal.test": [["127.0.0.1"], ["10.0.0.5"]] });
    const fetch = fetchWith(["127.0.0.1/32"], dns.resolve);
    const first = await fetch(`http://mcp.internal.test:${a.port}/close`);
    expect(await first.text()).to.equal("closing");
    expect(a.seen[0]?.host).to.equal(`mcp.internal.test:${a.port}`);
    // The server closed that connection; the next one resolves again and gets a private address.
    const refused = await refusalMessage(fetch(`http://mcp.internal.test:${a.port}/echo`));
    expect(refused).to.equal("refused: mcp.internal.test resolves to a private address");
    expect(dns.calls["mcp.internal.test"]).to.equal(2);
    expect(a.seen).to.have.length(1);
  });

  it("refuses a name with any refused address among public ones", async () => {
    const dns = resolver({ "mixed.test": [["93.184.216.34", "127.0.0.1"]] });
    const refused = await refusalMessage(fetchWith([], dns.resolve)(`http://mixed.test:${a.port}/`));
    expect(refused).to.equal("refused: mixed.test resolves to a loopback address");
  });

  it("checks every redirect's target: an IP literal, a name, the metadata address, another scheme", async () => {
    const dns = resolver({ "internal.test": [["10.0.0.5"]] });
    const fetch = fetchWith(["127.0.0.1/32"], dns.resolve);
    const to = (status: number, target: string) => `${a.origin}/redirect/${status}?to=${encodeURIComponent(target)}`;
    expect(await refusalMessage(fetch(to(302, `http://127.0.0.2:${b.port}/x`)))).to.equal("refused: 127.0.0.2 is a loopback address");
    expect(await refusalMessage(fetch(to(301, `http://[::1]:${b.port}/x`)))).to.equal("refused: ::1 is a loopback address");
    expect(await refusalMessage(fetch(to(307, `http://internal.test:${b.port}/x`)))).to.equal("refused: internal.test resolves to a private address");
    expect(await refusalMessage(fetch(to(308, "http://169.254.169.254/latest/meta-data/")))).to.equal(
      "refused: 169.254.169.254 is a link-local address (cloud metadata service)",
    );
    expect(await refusalMessage(fetch(to(302, "file:///etc/passwd")))).to.equal("refused: (no host) uses file:, only http: and https: are allowed");
    expect(await refusalMessage(fetch(to(302, `http://u:p@127.0.0.1:${b.port}/`)))).to.equal("refused: 127.0.0.1 has credentials in the URL");
    expect(a.seen).to.have.length(6);
    expect(b.seen, "no redirect target was reached").to.have.length(0);
  });

  it("follows redirects as fetch does: 303 and a POST's 301/302 become GET without body, 307/308 and a PUT's 301 keep both", async () => {
    const fetch = fetchWith(["127.0.0.1/32"]);
    const via = (status: number) => `${a.origin}/redirect/${status}?to=${encodeURIComponent(`${b.origin}/target`)}`;
    const post = { method: "POST", body: "payload", headers: { "content-type": "text/plain" } };
    const cases: [number, RequestInit, string, string][] = [
      [303, post, "GET", ""],
      [302, post, "GET", ""],
      [301, post, "GET", ""],
      [307, post, "POST", "payload"],
      [308, post, "POST", "payload"],
      [301, { ...post, method: "PUT" }, "PUT", "payload"],
      [303, { method: "HEAD" }, "HEAD", ""],
    ];
    for (const [status, init, method, body] of cases) {
      const response = await fetch(via(status), init);
      expect(response.status, `${status} ${init.method}`).to.equal(200);
      expect(response.redirected).to.equal(true);
      expect(response.url).to.equal(`${b.origin}/target`);
      await response.arrayBuffer();
      const target = b.seen.at(-1)!;
      expect({ method: target.method, body: target.body }, `${status} ${init.method}`).to.deep.equal({ method, body });
      expect(target.contentType, `${status} ${init.method}`).to.equal(body === "" ? undefined : "text/plain");
    }
  });

  it("drops Authorization on a redirect to another origin, keeps it within the origin", async () => {
    const fetch = fetchWith(["127.0.0.1/32"]);
    const headers = { authorization: "Bearer token-1" };
    await (await fetch(`${a.origin}/redirect/302?to=${encodeURIComponent(`${b.origin}/x`)}`, { headers })).arrayBuffer();
    expect(b.seen.at(-1)?.authorization, "another port is another origin").to.equal(undefined);
    await (await fetch(`${a.origin}/redirect/302?to=/same`, { headers })).arrayBuffer();
    expect(a.seen.at(-1)).to.include({ path: "/same", authorization: "Bearer token-1" });
  });

  it("follows at most 5 redirects", async () => {
    const fetch = fetchWith(["127.0.0.1/32"]);
    expect(await (await fetch(`${a.origin}/chain/5`)).json()).to.include({ path: "/chain/0" });
    const err = await rejection(fetch(`${a.origin}/chain/6`));
    expect(err).to.be.instanceOf(TypeError);
    expect(err.message).to.equal("fetch failed: more than 5 redirects (the last from 127.0.0.1)");
  });

  it("honours redirect: manual (the redirect is the answer) and error (a rejection)", async () => {
    const fetch = fetchWith(["127.0.0.1/32"]);
    const url = `${a.origin}/redirect/302?to=${encodeURIComponent(`${b.origin}/x`)}`;
    const manual = await fetch(url, { redirect: "manual" });
    expect(manual.status).to.equal(302);
    expect(manual.headers.get("location")).to.equal(`${b.origin}/x`);
    const err = await rejection(fetch(url, { redirect: "error" }));
    expect(err).to.be.instanceOf(TypeError);
    expect(b.seen).to.have.length(0);
  });

  it("streams a response body (an event stream whose end waits for its first event to be read) and stops on abort, even after a garbage collection", async () => {
    const fetch = fetchWith(["127.0.0.1/32"]);
    const response = await fetch(`${a.origin}/stream`, { headers: { accept: "text/event-stream" } });
    expect(response.headers.get("content-type")).to.equal("text/event-stream");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).to.equal("data: first\n\n");
    a.release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
    expect(rest).to.equal("data: second\n\n");

    const abort = new AbortController();
    const aborted = await fetch(`${a.origin}/stream`, { signal: abort.signal });
    const abortedReader = aborted.body!.getReader();
    await abortedReader.read();
    collectGarbage();
    abort.abort();
    expect((await rejection(abortedReader.read())).name).to.equal("AbortError");
  });

  it("bounds what an answer may make us hold: its body, or an event stream's events one by one", async () => {
    const MiB = 1024 * 1024;
    const fetch = fetchWith(["127.0.0.1/32"]);
    expect((await (await fetch(`${a.origin}/big?bytes=${MAX_RESPONSE_BYTES}`)).arrayBuffer()).byteLength).to.equal(MAX_RESPONSE_BYTES);
    const over = await fetch(`${a.origin}/big?bytes=${MAX_RESPONSE_BYTES + 1}`);
    expect((await rejection(over.arrayBuffer())).message).to.equal(`fetch failed: 127.0.0.1 sent an answer over ${MAX_RESPONSE_BYTES} bytes`);
    // An event stream may carry more than the bound in all, in events within it (CRLF line ends here).
    const events = await (await fetch(`${a.origin}/events?bytes=${MAX_RESPONSE_BYTES + 8 * MiB}&size=${MiB}`)).text();
    expect(events.length).to.be.greaterThan(MAX_RESPONSE_BYTES + 8 * MiB);
    const endless = await fetch(`${a.origin}/events?bytes=${MAX_RESPONSE_BYTES + MiB}&ended=0`);
    expect((await rejection(endless.text())).message).to.equal(`fetch failed: 127.0.0.1 sent an event over ${MAX_RESPONSE_BYTES} bytes`);
  });

  it("streams a request body, which cannot be sent again to a 307", async () => {
    const streamed = (): RequestInit & { duplex: "half" } => ({
      method: "POST",
      duplex: "half",
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("one,"));
          controller.enqueue(new TextEncoder().encode("two"));
          controller.close();
        },
      }),
    });
    const fetch = fetchWith(["127.0.0.1/32"]);
    expect(await (await fetch(`${a.origin}/upload`, streamed())).json()).to.include({ method: "POST", body: "one,two" });
    const err = await rejection(fetch(`${a.origin}/redirect/307?to=/again`, streamed()));
    expect(err.message).to.equal("fetch failed: a streamed request body cannot follow a redirect");
    expect(await (await fetch(`${a.origin}/redirect/303?to=/again`, streamed())).json()).to.include({ method: "GET", path: "/again" });
  });

  it("takes a Request as input, as fetch does", async () => {
    const response = await fetchWith(["127.0.0.1/32"])(new Request(`${a.origin}/req`, { method: "PATCH", body: "x", headers: { "x-one": "1" } }));
    expect(await response.json()).to.include({ method: "PATCH", path: "/req", body: "x" });
  });

  it("never puts the query string or a header value in a refusal", async () => {
    const token = secret();
    const bearer = secret();
    const dns = resolver({ "internal.test": [["10.0.0.5"]] });
    const fetch = fetchWith(["127.0.0.1/32"], dns.resolve);
    const headers = { authorization: `Bearer ${bearer}`, "x-api-key": bearer };
    const errors = [
      await rejection(fetch(`http://10.0.0.5/path?token=${token}`, { headers })),
      await rejection(fetch(`http://internal.test/path?token=${token}`, { headers })),
      await rejection(fetch(`http://user:${token}@127.0.0.1:${a.port}/?token=${token}`, { headers })),
      await rejection(fetch(`${a.origin}/redirect/302?to=${encodeURIComponent(`http://10.0.0.5/cb?token=${token}`)}`, { headers })),
    ];
    for (const err of errors) {
      expect(isOutboundRefused(err), String(err)).to.equal(true);
      for (const text of [err.message, String(err.stack), JSON.stringify(err)]) {
        expect(text).to.not.include(token);
        expect(text).to.not.include(bearer);
        expect(text).to.not.include("path");
      }
    }
    const unparsable = await rejection(fetch(`http://[bad/path?token=${token}`, { headers }));
    expect(unparsable).to.be.instanceOf(TypeError);
    expect(JSON.stringify({ ...unparsable, message: unparsable.message })).to.not.include(token);
  });

  it("is the fetch of the MCP SDK's transports: Streamable HTTP, and legacy SSE with its streamed GET", async () => {
    const token = secret();
    const [bearer, sse] = await Promise.all([startBearerServer({ token }), startSseOnlyServer()]);
    const fetch = fetchWith(["127.0.0.1/32"]);
    const clients: Client[] = [];
    try {
      const streamable = new Client({ name: "outbound-test", version: "1.0.0" });
      clients.push(streamable);
      await streamable.connect(
        new StreamableHTTPClientTransport(new URL(bearer.url), { fetch, requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      expect((await streamable.listTools()).tools.map((t) => t.name)).to.include("add");
      expect(await streamable.callTool({ name: "add", arguments: { a: 2, b: 3 } })).to.deep.include({ content: [{ type: "text", text: "5" }] });

      const legacy = new Client({ name: "outbound-test", version: "1.0.0" });
      clients.push(legacy);
      await legacy.connect(new SSEClientTransport(new URL(sse.url), { fetch }));
      expect(await legacy.callTool({ name: "echo", arguments: { text: "over sse" } })).to.deep.include({ content: [{ type: "text", text: "over sse" }] });

      const refused = new Client({ name: "outbound-test", version: "1.0.0" });
      const err = await rejection(refused.connect(new StreamableHTTPClientTransport(new URL(bearer.url), { fetch: fetchWith([]) })));
      expect(isOutboundRefused(err), "the SDK passes the refusal through").to.equal(true);
      expect(err.message).to.equal("refused: 127.0.0.1 is a loopback address");
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all([bearer.close(), sse.close()]);
    }
  });
});
