import { expect } from "chai";
import { connect, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { windowStart } from "../src/redis/fixed-window.js";
import { hashKey, keyIdOf } from "../src/accounts/store/organizations.js";
import { roomInWindow } from "./support/expect.js";
import { capturingLogs } from "./support/logs.js";
import { client, startServer, type TestServer } from "./support/server.js";
import { createSession, until } from "./support/sessions.js";

/** Node's parser refusals are answered in the error shape, but never into a response already on its way. */
describe("HTTP parser refusals on a busy connection", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ ROLE: "api" });
  });
  after(async () => server.close());

  it("a malformed request pipelined behind an SSE response does not write an error into the stream", async () => {
    const key = await server.newKey();
    const { sessionId } = await createSession(client(server.url, key));
    const { port } = new URL(server.url);
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString("utf8")));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.write(`GET /v1/sessions/${sessionId}/events/stream HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n\r\n`);
    const deadline = Date.now() + 5_000;
    while (!received.includes("\r\n\r\n") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(received, "the stream's headers").to.match(/^HTTP\/1\.1 200 OK/);
    const before = received.length;
    socket.write("THIS IS NOT HTTP\r\n\r\n");
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3_000))]);
    socket.destroy();
    expect(received.slice(before)).to.not.include("HTTP/1.1 400");
  });
});

/** A client that goes away mid-request is the client's doing: an info line with the cause, never an error. */
describe("a client that goes away", () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ ROLE: "api", LOG_LEVEL: "info" });
  });
  after(async () => server.close());

  type Entry = { level: string; msg: string; err?: { message: string; cause?: { message: string; code?: string } } };
  const entries = (lines: string[]) => lines.map((line) => JSON.parse(line) as Entry);

  /** Half of a gzip body: bytes that decode so far, and whose end never comes. */
  const halfGzip = () => {
    const whole = gzipSync(Buffer.from(JSON.stringify({ name: "x".repeat(100_000) })));
    return whole.subarray(0, whole.length >> 1);
  };

  /**
   * Sends half a body, plain or gzip, then `end`s the connection: at once, or once the request is past
   * authentication and its body is being read.
   */
  async function abandon(end: (s: Socket) => void, whenReading: boolean, gzip = false): Promise<string[]> {
    await roomInWindow();
    const key = await server.newKey();
    const counted = () => server.core.connections.redis.get(server.core.connections.keys.keyCeiling(keyIdOf(hashKey(key)), windowStart()));
    const { port } = new URL(server.url);
    const { lines } = await capturingLogs(async (seen) => {
      const socket = connect(Number(port), "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", resolve));
      const coding = gzip ? "content-encoding: gzip\r\n" : "";
      const head = `POST /v1/agents HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: 10000\r\n${coding}\r\n`;
      const half = gzip ? halfGzip() : Buffer.from(`{"name":"half a bo`);
      await new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(head), half]), () => resolve()));
      // Authenticated means the body parser is next: it is reading by the time this reply arrives.
      if (whenReading) await until(counted, (n) => n === "1", 10_000, "the request to be authenticated");
      end(socket);
      await until(async () => entries(seen).find((e) => e.msg === "client went away" || e.level === "error"), Boolean, 10_000, "the request's log line");
    });
    return lines;
  }

  function expectInfoWithCause(lines: string[], cause: RegExp): void {
    const logged = entries(lines);
    expect(
      logged.filter((e) => e.level === "error"),
      lines.join("\n"),
    ).to.deep.equal([]);
    const gone = logged.find((e) => e.msg === "client went away")!;
    expect(gone.level).to.equal("info");
    expect(gone.err?.cause?.message, "the body parser's error").to.match(cause);
  }

  it("closes its connection while its request body is being read: logged at info with the cause", async () => {
    expectInfoWithCause(await abandon((s) => s.destroy(), true), /^request aborted$/);
  });

  it("resets its connection while its request body is being read: logged at info with the cause", async () => {
    expectInfoWithCause(await abandon((s) => s.resetAndDestroy(), true), /^(request aborted|aborted|read ECONNRESET)$/);
  });

  it("closes its connection before its body is read (the parser finds the stream closed): logged at info with the cause", async () => {
    expectInfoWithCause(await abandon((s) => s.destroy(), false), /^(stream is not readable|request aborted)$/);
  });

  it("closes or resets its connection while its gzip body is being decoded: the decoder ends, and it is logged at info with the cause", async () => {
    expectInfoWithCause(await abandon((s) => s.destroy(), true, true), /^(aborted|Premature close)$/);
    expectInfoWithCause(await abandon((s) => s.resetAndDestroy(), true, true), /^(aborted|read ECONNRESET|Premature close)$/);
  });

  it("closes its connection before its gzip body is read: logged at info with the cause", async () => {
    expectInfoWithCause(await abandon((s) => s.destroy(), false, true), /^(aborted|Premature close|stream is not readable)$/);
  });

  it("an upstream's reset while the client waits is still a 500 logged at error with its cause", async () => {
    const api = client(server.url, await server.newKey());
    const agents = server.core.services.agents;
    const original = agents.list;
    agents.list = async () => {
      throw Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    };
    const { result: res, lines } = await capturingLogs(() => api.get("/v1/agents")).finally(() => {
      agents.list = original;
    });
    expect(res.status).to.equal(500);
    const failed = entries(lines).find((e) => e.msg === "request failed") as Entry & { err: { code?: string } };
    expect(failed.level).to.equal("error");
    expect(failed.err.code).to.equal("ECONNRESET");
  });
});
