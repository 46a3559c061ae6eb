/** Regression tests for defects found by a fuzzer and by real clients: each asserts the correct behaviour. */
import { expect } from "chai";
import { connect } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsImport from "ajv-formats";
import { agentBody, client, startServer, type Client, type Reply, type TestServer } from "./support/server.js";
import { createAgent, createSession } from "./support/api.js";
import { entriesOf, expectValidation } from "./support/expect.js";
import { getStream } from "./support/sse.js";

const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;

/** Query values that are not a plain decimal integer, as decoded strings (sent URL-encoded). */
const NON_CANONICAL = ["Infinity", "-Infinity", "NaN", "1e400", "1e3", "0x10", "0b1", "0o7", " 5", "5 ", "05", "+5", "1.0", ""];
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Why a reply is not `400 validation_error` listing `entry`, or undefined when it is. */
function validationProblem(res: Reply<any>, entry: string): string | undefined {
  if (res.status === 400 && res.body?.error === "validation_error" && entriesOf(res).includes(entry)) return undefined;
  return `${res.status} ${JSON.stringify(res.body).slice(0, 160)}`;
}

/** Follows local `$ref`s (`#/...`) through the document. */
function resolve(doc: any, node: any): any {
  for (let hops = 0; node && typeof node.$ref === "string" && node.$ref.startsWith("#/") && hops < 20; hops++) {
    node = node.$ref
      .slice(2)
      .split("/")
      .reduce((at: any, part: string) => at?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return node;
}

function operations(doc: any): { path: string; method: string; op: any; params: any[] }[] {
  const out = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of HTTP_METHODS) {
      if (!item[method]) continue;
      const params = [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p: any) => resolve(doc, p));
      out.push({ path, method, op: item[method], params });
    }
  }
  return out;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` on a raw TCP connection and reads the response until the server closes it. */
function rawExchange(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", () => undefined); // a reset after the answer still leaves what was read
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return reject(new Error(`no complete response head: ${JSON.stringify(text.slice(0, 300))}`));
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = text.slice(end + 4);
      if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
        let out = "";
        for (let at = 0; ;) {
          const eol = body.indexOf("\r\n", at);
          const size = parseInt(body.slice(at, eol), 16);
          if (!(size > 0)) break;
          out += body.slice(eol + 2, eol + 2 + size);
          at = eol + 2 + size + 2;
        }
        body = out;
      }
      resolvePromise({ status: Number(statusLine!.split(" ")[1]), headers, body });
    });
    socket.write(request);
  });
}

function expectJsonError(res: RawResponse, status: number, code: string): void {
  const shown = JSON.stringify(res).slice(0, 300);
  expect(res.status, shown).to.equal(status);
  expect(res.headers["content-type"] ?? "", shown).to.match(/^application\/json\b/);
  let body: any;
  expect(() => (body = JSON.parse(res.body)), shown).to.not.throw();
  expect(body.error, shown).to.equal(code);
  expect(body.message, shown).to.be.a("string").and.not.equal("");
}

describe("fuzzer and client defects (API role)", () => {
  let server: TestServer;
  let key: string;
  let api: Client;
  let agentId: string;
  let sessionId: string;

  before(async () => {
    server = await startServer({ ROLE: "api" });
    key = await server.newKey();
    api = client(server.url, key);
    agentId = (await createAgent(api)).id;
    sessionId = (await createSession(api, agentId)).id;
  });
  after(async () => server.close());

  describe("integer query parameters refuse non-finite and non-canonical numbers", () => {
    const endpoints: { name: string; path: () => string; params: Record<string, string>; stream?: boolean }[] = [
      { name: "GET /v1/agents", path: () => "/v1/agents", params: { limit: "5", offset: "0" } },
      { name: "GET /v1/agents/{id}/versions", path: () => `/v1/agents/${agentId}/versions`, params: { limit: "5", offset: "0" } },
      { name: "GET /v1/sessions", path: () => "/v1/sessions", params: { limit: "5", offset: "0" } },
      { name: "GET /v1/sessions/{id}/events", path: () => `/v1/sessions/${sessionId}/events`, params: { after: "0", limit: "5" } },
      { name: "GET /v1/sessions/{id}/events/stream", path: () => `/v1/sessions/${sessionId}/events/stream`, params: { after: "0" }, stream: true },
    ];
    for (const ep of endpoints) {
      for (const [param, good] of Object.entries(ep.params)) {
        it(`${ep.name} ?${param}=: 400 "${param}: must be integer" for each bad value, 200 for ${param}=${good}`, async () => {
          const get = (value: string) => {
            const path = `${ep.path()}?${param}=${encodeURIComponent(value)}`;
            return ep.stream ? getStream(server.url + path, key) : api.get(path);
          };
          const ok = await get(good);
          expect(ok.status, `${param}=${good}: ${JSON.stringify(ok.body).slice(0, 160)}`).to.equal(200);
          const failures: string[] = [];
          for (const value of NON_CANONICAL) {
            const problem = validationProblem(await get(value), `${param}: must be integer`);
            if (problem) failures.push(`${param}=${JSON.stringify(value)} -> ${problem}`);
          }
          expect(failures.length, `accepted or misreported:\n  ${failures.join("\n  ")}\n`).to.equal(0);
        });
      }
    }
  });

  it("GET /v1/agents/{id}/versions/{version} refuses a version that is not a positive integer, naming `version`", async () => {
    expect((await api.get(`/v1/agents/${agentId}/versions/1`)).status).to.equal(200);
    const cases: [string, string][] = [
      ["0", "must be >= 1"],
      ["-1", "must be >= 1"],
      ["abc", "must be integer"],
      ["1.5", "must be integer"],
      ["0x1", "must be integer"],
      ["01", "must be integer"],
      ["Infinity", "must be integer"],
    ];
    const failures: string[] = [];
    for (const [value, constraint] of cases) {
      const problem = validationProblem(await api.get(`/v1/agents/${agentId}/versions/${encodeURIComponent(value)}`), `version: ${constraint}`);
      if (problem) failures.push(`version ${JSON.stringify(value)} (want "version: ${constraint}") -> ${problem}`);
    }
    expect(failures.length, `\n  ${failures.join("\n  ")}\n`).to.equal(0);
  });

  describe("the OpenAPI document", () => {
    let doc: any;
    before(async () => {
      doc = (await client(server.url).get("/v1/openapi.json")).body;
    });

    it("declares {version} of /v1/agents/{agentId}/versions/{version} as an integer >= 1", () => {
      const op = operations(doc).find((o) => o.path === "/v1/agents/{agentId}/versions/{version}" && o.method === "get")!;
      const param = op.params.find((p) => p.name === "version" && p.in === "path");
      expect(param, "version path parameter").to.be.an("object");
      const schema = resolve(doc, param.schema);
      expect(schema, JSON.stringify(param)).to.include({ type: "integer", minimum: 1 });
    });

    it("bounds every string path parameter, and a longer id is refused naming it", async () => {
      const unbounded = operations(doc).flatMap((o) =>
        o.params
          .filter((p) => p.in === "path" && resolve(doc, p.schema)?.type === "string" && typeof resolve(doc, p.schema)?.maxLength !== "number")
          .map((p) => `${o.method} ${o.path} {${p.name}}`),
      );
      expect(unbounded, "path parameters without maxLength").to.deep.equal([]);
      const long = "x".repeat(101);
      for (const [path, entry] of [
        [`/v1/sessions/${long}`, "sessionId"],
        [`/v1/agents/${long}`, "agentId"],
        [`/v1/agents/a/users/s/automations/${long}`, "automationId"],
      ]) {
        expectValidation(await api.get(path!), `${entry}: must be at most 100 characters`);
      }
    });

    it("gives every operation a distinct operationId", () => {
      const ids = operations(doc).map((o) => [`${o.method} ${o.path}`, o.op.operationId]);
      const missing = ids.filter(([, id]) => typeof id !== "string" || id === "").map(([name]) => name);
      expect(missing, "operations without operationId").to.deep.equal([]);
      const seen = ids.map(([, id]) => id);
      expect(
        seen.filter((id, i) => seen.indexOf(id) !== i),
        "duplicate operationIds",
      ).to.deep.equal([]);
    });

    it("describes the `agent` and `subject` query parameters of GET /v1/sessions as aliases", () => {
      const op = operations(doc).find((o) => o.path === "/v1/sessions" && o.method === "get")!;
      for (const [alias, main] of [
        ["agent", "agentId"],
        ["subject", "subjectId"],
      ] as const) {
        const param = op.params.find((p) => p.name === alias && p.in === "query");
        expect(param, `${alias} parameter`).to.be.an("object");
        const description = param.description || resolve(doc, param.schema)?.description;
        expect(description, `${alias}: ${JSON.stringify(param)}`)
          .to.be.a("string")
          .and.include(main);
      }
    });

    it("its agent create body schema refuses a modelName whose provider the service refuses", async () => {
      expectValidation(await api.post("/v1/agents", agentBody({ modelName: "acme/gpt-4o" })));
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema(doc, "openapi.json");
      expect(doc.paths["/v1/agents"].post.requestBody.content["application/json"].schema).to.be.an("object");
      const validate = ajv.compile({ $ref: "openapi.json#/paths/~1v1~1agents/post/requestBody/content/application~1json/schema" });
      for (const modelName of ["mock/echo", "anthropic/claude-sonnet-4-5"]) {
        expect(validate(agentBody({ modelName })), `${modelName}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      }
      expect(validate(agentBody({ modelName: "acme/gpt-4o" })), "acme/gpt-4o is valid for the document").to.equal(false);
    });

    it("declares a JSON 2xx response and JSON 400/401/404/500 error responses on every operation (401 where a key is needed)", () => {
      const problems: string[] = [];
      const jsonSchemaOf = (response: any) => resolve(doc, response)?.content?.["application/json"]?.schema;
      for (const { path, method, op, params } of operations(doc)) {
        const name = `${method.toUpperCase()} ${path}`;
        const responses = op.responses ?? {};
        const success = Object.keys(responses).filter((s) => /^2(\d\d|XX)$/.test(s));
        if (path.endsWith("/events/stream")) {
          // OpenAPI 3.1 readers (schemathesis) check each event against the stream's schema: an object, data required.
          const event = resolve(doc, responses["200"])?.content?.["text/event-stream"]?.schema;
          if (event?.type !== "object" || !event.required?.includes("data")) problems.push(`${name}: 200 text/event-stream, one event's schema`);
        } else if (!success.some((s) => jsonSchemaOf(responses[s]))) problems.push(`${name}: 2xx with a JSON schema`);
        const takesInput = op.requestBody || params.some((p) => p.in === "query" || p.in === "path");
        // An operation served without a key (security: []) cannot answer 401.
        const open = Array.isArray(op.security) && op.security.length === 0;
        const required = [...(takesInput ? ["400"] : []), ...(open ? [] : ["401"]), ...(path.includes("{") ? ["404"] : []), "500"];
        for (const status of required) if (!jsonSchemaOf(responses[status])) problems.push(`${name}: ${status} with a JSON schema`);
      }
      expect(problems.length, `missing:\n  ${problems.join("\n  ")}\n`).to.equal(0);
    });
  });

  describe("Node's HTTP parser errors", () => {
    const port = () => Number(new URL(server.url).port);

    it("a malformed header line gets 400 with the service's JSON error body", async () => {
      expectJsonError(await rawExchange(port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n"), 400, "validation_error");
    });

    it("an invalid request line gets 400 with the service's JSON error body", async () => {
      expectJsonError(await rawExchange(port(), "HELLO\r\n\r\n"), 400, "validation_error");
    });

    it("request headers over Node's limit get 431 with the service's JSON error body", async () => {
      const request = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`;
      expectJsonError(await rawExchange(port(), request), 431, "validation_error");
    });
  });
});
