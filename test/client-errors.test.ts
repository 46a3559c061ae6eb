import { expect } from "chai";
import { connect } from "node:net";
import { client, startServer, type TestServer } from "./support/server.js";
import { createSession } from "./support/sessions.js";

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
