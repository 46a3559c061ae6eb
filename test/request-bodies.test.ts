/**
 * Request bodies as they come on the wire, on the core interface, over real keep-alive connections:
 * content codings decoded, or refused with 400 (undecodable) or 415 (not decoded here), never 500; a
 * compressed body bounded once decoded; and a refused body's rest either drained, so the connection
 * serves its next request, or the connection closed cleanly with `Connection: close`, never left to
 * hang the next request.
 */
import { expect } from "chai";
import { agentBody, client, startServer, type TestServer } from "./support/server.js";
import { CODINGS, UNDECODABLE, UNSUPPORTED_CODINGS, UNSUPPORTED_MESSAGE, chunked, filler, gzipBomb } from "./support/encoded-bodies.js";
import { RawConnection, expectClosedCleanly, expectKept, type RawAnswer } from "./support/raw-connection.js";

const DEFAULT_LIMIT = 16 * 1024 * 1024;

function expectRefused(answer: RawAnswer, status: number, message: string): void {
  expect(answer.status, JSON.stringify(answer)).to.equal(status);
  expect(answer.body).to.include({ error: "validation_error", message });
}

describe("request bodies: encodings and refusals (core interface)", () => {
  let server: TestServer;
  let key: string;
  let conn: RawConnection;

  before(async () => {
    server = await startServer({ ROLE: "api" });
    key = await server.newKey();
  });
  beforeEach(async () => {
    conn = await RawConnection.open(server.url);
  });
  afterEach(() => conn.close());
  after(async () => server.close());

  const createAgent = (headers: Record<string, string>, body: Buffer) =>
    conn.send("POST", "/v1/agents", { "x-api-key": key, "content-type": "application/json", ...headers }, body);
  const next = () => ({ path: "/v1/agents?limit=1", headers: { "x-api-key": key } });

  it("decodes a body in each coding it names (gzip, x-gzip, deflate, br), on one connection", async () => {
    for (const [coding, encode] of Object.entries(CODINGS)) {
      createAgent({ "content-encoding": coding }, encode(Buffer.from(JSON.stringify(agentBody({ name: `Bot ${coding}` })))));
      const answer = await conn.answer();
      expect(answer.status, `${coding}: ${JSON.stringify(answer.body)}`).to.equal(201);
      expect(answer.body.name).to.equal(`Bot ${coding}`);
    }
  });

  it("a body that does not decode as its Content-Encoding says is 400 validation_error, and the connection serves the next request", async () => {
    for (const coding of ["gzip", "deflate", "br"]) {
      createAgent({ "content-encoding": coding }, UNDECODABLE);
      const answer = await conn.answer();
      expectRefused(answer, 400, `body: must be valid ${coding} data, as its Content-Encoding says`);
      await expectKept(conn, answer, next());
    }
  });

  it("a JSON body with a __proto__ key is refused with 400, so no parsed body can set a prototype", async () => {
    createAgent({}, Buffer.from(`{"name":"Bot","__proto__":{"polluted":true}}`));
    const answer = await conn.answer();
    expectRefused(answer, 400, "body: must be a valid JSON object");
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    await expectKept(conn, answer, next());
  });

  it("a Content-Encoding the service does not decode is 415 validation_error, and the connection serves the next request", async () => {
    for (const coding of UNSUPPORTED_CODINGS) {
      createAgent({ "content-encoding": coding }, Buffer.from(JSON.stringify(agentBody())));
      const answer = await conn.answer();
      expectRefused(answer, 415, UNSUPPORTED_MESSAGE);
      expect(answer.headers["accept-encoding"]).to.equal("gzip, deflate, br");
      await expectKept(conn, answer, next());
    }
  });

  it("a compressed body that inflates past the limit (1 MB on the wire, 1 GiB decoded) is refused at the limit, and the connection serves the next request", async () => {
    createAgent({ "content-encoding": "gzip" }, gzipBomb());
    const answer = await conn.answer();
    // The wire's megabyte is under the limit: only the decoded bytes were counted against it.
    expectRefused(answer, 400, `body: must be at most ${DEFAULT_LIMIT} bytes once decoded`);
    await expectKept(conn, answer, next());
  });

  it("a plain body a little over the limit is refused, its rest drained, and the connection serves the next request", async () => {
    createAgent({ "transfer-encoding": "chunked" }, chunked(filler(17)));
    const answer = await conn.answer();
    expectRefused(answer, 400, `body: must be at most ${DEFAULT_LIMIT} bytes`);
    await expectKept(conn, answer, next());
  });

  it("a body far over the limit, sent in full, is refused with Connection: close and its connection ends cleanly", async () => {
    createAgent({ "transfer-encoding": "chunked" }, chunked(filler(40)));
    const answer = await conn.answer();
    expectRefused(answer, 400, `body: must be at most ${DEFAULT_LIMIT} bytes`);
    await expectClosedCleanly(conn, answer);
  });

  it("a declared length far over the limit is refused before its body comes, with Connection: close, and its connection ends cleanly", async () => {
    createAgent({ "content-length": String(100 * 1024 * 1024) }, Buffer.alloc(0));
    const answer = await conn.answer();
    expectRefused(answer, 400, `body: must be at most ${DEFAULT_LIMIT} bytes`);
    await expectClosedCleanly(conn, answer);
  });

  it("a request refused before its body is read (no key) drains a small body and keeps its connection, and closes over a large one", async () => {
    conn.send("POST", "/v1/agents", { "content-type": "application/json" }, filler(1));
    const small = await conn.answer();
    expect(small.status).to.equal(401);
    await expectKept(conn, small, next());
    conn.send("POST", "/v1/agents", { "content-type": "application/json" }, filler(12));
    const large = await conn.answer();
    expect(large.status).to.equal(401);
    await expectClosedCleanly(conn, large);
  });

  it("the documents declare 415 on every operation that takes a body, and on no other", async () => {
    for (const url of [server.url, server.deploymentsUrl]) {
      const doc = (await client(url).get("/v1/openapi.json")).body;
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          expect(op.responses["415"] !== undefined, `${method} ${path}`).to.equal(["post", "put", "patch"].includes(method));
        }
      }
    }
  });
});
