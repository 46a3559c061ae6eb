import {
  AgentSessionsError,
  APIConnectionError,
  APIConnectionTimeoutError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  backoffDelay,
  ConflictError,
  createAgentSessionsClient,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  retryAfterSeconds,
  retryDelay,
  UnprocessableEntityError,
} from "@agent-sessions/client";
import { expect } from "chai";

const reply = (status: number, headers: Record<string, string> = {}) => new Response(null, { status, headers });
const none = () => 0;
const all = () => 0.999999;

/** The client's retry rules: which refusals are sent again, after how long, and how many times. */
describe("the client's retry rules", () => {
  it("waits a 429's or a 5xx's Retry-After, plus at most the jitter", () => {
    expect(retryDelay(reply(429, { "retry-after": "7" }), 1, {}, none)).to.equal(7000);
    expect(retryDelay(reply(429, { "retry-after": "7" }), 1, {}, all)).to.equal(7500);
    expect(retryDelay(reply(503, { "retry-after": "2" }), 1, { jitterMs: 0 })).to.equal(2000);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterSeconds(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now)).to.equal(30);
    expect(retryAfterSeconds(new Headers({ "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }), now)).to.equal(0);
    expect(retryAfterSeconds(new Headers({ "retry-after": "soon" }), now)).to.equal(undefined);
    expect(retryAfterSeconds(new Headers(), now)).to.equal(undefined);
  });

  it("backs off after a 429, a 5xx or no answer without Retry-After; never retries other statuses", () => {
    const backoff = { backoff: { initialDelayMs: 1000 } };
    expect(retryDelay(reply(429), 1, backoff, none)).to.equal(500);
    expect(retryDelay(reply(429), 2, backoff, all)).to.equal(2000);
    for (const status of [500, 502, 503, 504]) expect(retryDelay(reply(status), 1, backoff, none), String(status)).to.equal(500);
    expect(retryDelay(null, 1, backoff, none)).to.equal(500);
    for (const status of [409, 400, 401, 404, 422, 200]) expect(retryDelay(reply(status), 1), String(status)).to.equal(undefined);
  });

  it("stops after maxRetries, and rather than wait longer than maxDelayMs", () => {
    const limited = reply(429, { "retry-after": "30" });
    expect(retryDelay(limited, 2, { maxRetries: 2 }, none)).to.equal(30_000);
    expect(retryDelay(limited, 3, { maxRetries: 2 }, none)).to.equal(undefined);
    expect(retryDelay(limited, 1, { maxRetries: 0 }, none)).to.equal(undefined);
    expect(retryDelay(null, 3, {}, none)).to.equal(undefined);
    expect(retryDelay(limited, 1, { maxDelayMs: 29_999 }, none)).to.equal(undefined);
    // A full window's Retry-After is waited with the default bound, its jitter on top.
    expect(retryDelay(reply(429, { "retry-after": "60" }), 1, {}, all)).to.equal(60_500);
  });

  it("doubles the backoff up to its cap, half of it fixed and half random", () => {
    const options = { initialDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 40].map((n) => backoffDelay(n, options, none))).to.deep.equal([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 40].map((n) => backoffDelay(n, options, all))).to.deep.equal([100, 200, 400, 800, 1000, 1000]);
  });

  it("sends every attempt of a POST with one Idempotency-Key (its own unless the caller gave one); a GET with none", async () => {
    const seen: { method: string; key: string | null }[] = [];
    const refusingOnce = async (request: Request) => {
      seen.push({ method: request.method, key: request.headers.get("idempotency-key") });
      return seen.length % 2 === 1 ? reply(503, { "retry-after": "0" }) : Response.json({ data: [], pagination: { hasMore: false } }, { status: 200 });
    };
    const client = createAgentSessionsClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", fetch: refusingOnce, retry: { jitterMs: 0 } });
    await client.api.POST("/v1/agents", { body: { name: "a", modelName: "mock/echo", systemPrompt: "x", skills: [] } as never });
    await client.api.POST("/v1/agents", {
      body: { name: "b", modelName: "mock/echo", systemPrompt: "x", skills: [] } as never,
      headers: { "idempotency-key": "mine" },
    });
    await client.api.GET("/v1/agents");
    expect(seen.map((s) => s.method)).to.deep.equal(["POST", "POST", "POST", "POST", "GET", "GET"]);
    expect(seen[0]!.key).to.match(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.key).to.equal(seen[0]!.key);
    expect([seen[2]!.key, seen[3]!.key]).to.deep.equal(["mine", "mine"]);
    expect([seen[4]!.key, seen[5]!.key]).to.deep.equal([null, null]);
  });
});

describe("the client's answers when no answer comes", () => {
  const quick = { retry: { backoff: { initialDelayMs: 1, maxDelayMs: 2 } } };

  it("sends again after connection errors, with the same Idempotency-Key, and succeeds", async () => {
    const keys: (string | null)[] = [];
    const flaky = async (request: Request) => {
      keys.push(request.headers.get("idempotency-key"));
      if (keys.length < 3) throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
      return Response.json({ id: "agt_1" }, { status: 201 });
    };
    const client = createAgentSessionsClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", fetch: flaky, ...quick });
    const created = await client.agents.create({ name: "a", modelName: "mock/echo", systemPrompt: "x", skills: [], tools: [] });
    expect(created).to.deep.equal({ id: "agt_1" });
    expect(keys).to.have.length(3);
    expect(new Set(keys).size).to.equal(1);
  });

  it("throws APIConnectionError once the retries are spent, never the platform's TypeError", async () => {
    let attempts = 0;
    const down = async () => {
      attempts++;
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    };
    const client = createAgentSessionsClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", fetch: down, maxRetries: 3, ...quick });
    const err = await client.sessions.get("ses_1").catch((e: unknown) => e);
    expect(err).to.be.instanceOf(APIConnectionError).and.instanceOf(AgentSessionsError);
    expect((err as Error).message).to.include("ECONNREFUSED");
    expect(attempts).to.equal(4);
  });

  it("gives up an attempt that gets no answer within timeoutMs: APIConnectionTimeoutError", async () => {
    const silent = (request: Request) =>
      new Promise<Response>((_, reject) => request.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
    const client = createAgentSessionsClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", fetch: silent, timeoutMs: 5, maxRetries: 1, ...quick });
    expect(await client.agents.get("agt_1").catch((e: unknown) => e)).to.be.instanceOf(APIConnectionTimeoutError);
  });

  it("a caller's abort is not retried and not turned into a connection error", async () => {
    const controller = new AbortController();
    let attempts = 0;
    const hanging = (request: Request) =>
      new Promise<Response>((_, reject) => {
        attempts++;
        request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
        controller.abort(new Error("stop"));
      });
    const client = createAgentSessionsClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", fetch: hanging, ...quick });
    const err = await client.agents.get("agt_1", { signal: controller.signal }).catch((e: unknown) => e);
    expect(err).to.not.be.instanceOf(APIConnectionError);
    expect(attempts).to.equal(1);
  });

  it("makes each refusal the class of its status, carrying the code and the request id", async () => {
    const refusing = (status: number, error: string) => async () =>
      Response.json({ error, message: "no" }, { status, headers: { "x-request-id": `req-${status}` } });
    const cases = [
      [400, "validation_error", BadRequestError],
      [401, "unauthorized", AuthenticationError],
      [403, "forbidden", PermissionDeniedError],
      [404, "not_found", NotFoundError],
      [409, "conflict", ConflictError],
      [422, "idempotency_error", UnprocessableEntityError],
      [429, "rate_limited", RateLimitError],
      [500, "server_error", InternalServerError],
    ] as const;
    for (const [status, code, Class] of cases) {
      const client = createAgentSessionsClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", fetch: refusing(status, code), maxRetries: 0 });
      const err = await client.agents.get("agt_1").catch((e: unknown) => e);
      expect(err, String(status))
        .to.be.instanceOf(Class)
        .and.instanceOf(ApiError)
        .and.include({ status, code, requestId: `req-${status}` });
    }
  });
});
