/**
 * Request bodies as they come on the wire, on the deployments interface, over real keep-alive
 * connections: its JSON bodies, its thread events (a larger limit) and its file uploads (raw bytes)
 * are decoded, or refused with 400 or 415, never 500; bounded once decoded; and a refused body never
 * leaves its connection hanging (drained, or closed cleanly with `Connection: close`).
 */
import { expect } from "chai";
import { EVENTS_BODY_LIMIT_BYTES } from "../src/http/middleware.js";
import { MAX_UPLOAD_BYTES } from "../src/deployments/threads.js";
import { deploymentsClient, readyDeployment } from "./support/deployments.js";
import { CODINGS, UNDECODABLE, UNSUPPORTED_CODINGS, UNSUPPORTED_MESSAGE, chunked, filler, gzipBomb } from "./support/encoded-bodies.js";
import { RawConnection, expectClosedCleanly, expectKept, type RawAnswer } from "./support/raw-connection.js";
import { startServer, type Client, type TestServer } from "./support/server.js";

function expectRefused(answer: RawAnswer, status: number, message: string): void {
  expect(answer.status, JSON.stringify(answer)).to.equal(status);
  expect(answer.body).to.include({ error: "validation_error", message });
}

describe("request bodies: encodings and refusals (deployments interface)", () => {
  let server: TestServer;
  let api: Client;
  let auth: Record<string, string>;
  let d: any;
  let conn: RawConnection;

  before(async () => {
    server = await startServer();
    let key: string;
    ({ api, key } = await deploymentsClient(server));
    auth = { authorization: `Bearer ${key}` };
    d = await readyDeployment(api);
  });
  beforeEach(async () => {
    conn = await RawConnection.open(server.deploymentsUrl);
  });
  afterEach(() => conn.close());
  after(async () => server.close());

  const next = () => ({ path: "/v1/deployments?limit=1", headers: auth });
  const json = (path: string, headers: Record<string, string>, body: Buffer) =>
    conn.send("POST", path, { ...auth, "content-type": "application/json", ...headers }, body);
  const upload = (name: string, headers: Record<string, string>, body: Buffer) =>
    conn.send("PUT", `/v1/deployments/${d.deployment_id}/files/${encodeURIComponent(name)}`, { ...auth, "content-type": "text/markdown", ...headers }, body);

  it("decodes a JSON body in each coding it names; refuses an undecodable one with 400 and an unknown coding with 415, and keeps serving", async () => {
    for (const [coding, encode] of Object.entries(CODINGS)) {
      // The body is read and validated: its decoded fields are what the message names.
      json("/v1/deployments", { "content-encoding": coding }, encode(Buffer.from(JSON.stringify({ name: "x" }))));
      const answer = await conn.answer();
      expect(answer.status, coding).to.equal(400);
      expect(answer.body.message, coding).to.include("customer_id: is required").and.not.include("name:");
    }
    json("/v1/deployments", { "content-encoding": "br" }, UNDECODABLE);
    const broken = await conn.answer();
    expectRefused(broken, 400, "body: must be valid br data, as its Content-Encoding says");
    await expectKept(conn, broken, next());
    for (const coding of UNSUPPORTED_CODINGS) {
      json("/v1/deployments", { "content-encoding": coding }, Buffer.from("{}"));
      const answer = await conn.answer();
      expectRefused(answer, 415, UNSUPPORTED_MESSAGE);
      await expectKept(conn, answer, next());
    }
  });

  it("a thread's events that inflate past the events limit are refused at it, and the connection serves the next request", async () => {
    json(`/v1/deployments/${d.deployment_id}/threads/${d.thread_id}/events`, { "content-encoding": "gzip" }, gzipBomb());
    const answer = await conn.answer();
    expectRefused(answer, 400, `body: must be at most ${EVENTS_BODY_LIMIT_BYTES} bytes once decoded`);
    await expectKept(conn, answer, next());
  });

  it("stores an uploaded file decoded from its coding", async () => {
    const text = Buffer.from("# Notes\n\nCompressed on the way, plain in the workspace.\n");
    for (const [coding, encode] of Object.entries(CODINGS)) {
      upload(`notes-${coding}.md`, { "content-encoding": coding }, encode(text));
      const answer = await conn.answer();
      expect(answer.status, `${coding}: ${JSON.stringify(answer.body)}`).to.equal(200);
      expect(answer.body.size).to.equal(text.length);
    }
  });

  it("an upload that does not decode is 400, in an unknown coding 415, and one inflating past its limit 400; the connection serves each next request", async () => {
    upload("broken.md", { "content-encoding": "gzip" }, UNDECODABLE);
    const broken = await conn.answer();
    expectRefused(broken, 400, "body: must be valid gzip data, as its Content-Encoding says");
    await expectKept(conn, broken, next());
    upload("odd.md", { "content-encoding": "compress" }, Buffer.from("text"));
    const odd = await conn.answer();
    expectRefused(odd, 415, UNSUPPORTED_MESSAGE);
    await expectKept(conn, odd, next());
    upload("bomb.md", { "content-encoding": "gzip" }, gzipBomb());
    const bomb = await conn.answer();
    expectRefused(bomb, 400, `body: must be at most ${MAX_UPLOAD_BYTES} bytes once decoded`);
    await expectKept(conn, bomb, next());
  });

  it("an upload a little over its limit is drained and keeps its connection; one far over it is refused with Connection: close and the connection ends cleanly", async () => {
    upload("big.md", { "transfer-encoding": "chunked" }, chunked(filler(2)));
    const over = await conn.answer();
    expectRefused(over, 400, `body: must be at most ${MAX_UPLOAD_BYTES} bytes`);
    await expectKept(conn, over, next());
    upload("huge.md", { "transfer-encoding": "chunked" }, chunked(filler(12)));
    const far = await conn.answer();
    expectRefused(far, 400, `body: must be at most ${MAX_UPLOAD_BYTES} bytes`);
    await expectClosedCleanly(conn, far);
  });
});
