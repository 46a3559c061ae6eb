import { backoffDelay, createAgentSessionsClient, retryAfterSeconds, retryDelay } from "@agent-sessions/client";
import { expect } from "chai";

const reply = (status: number, headers: Record<string, string> = {}) => new Response(null, { status, headers });
const none = () => 0;
const all = () => 0.999999;

/** The client's retry rules: which refusals are sent again, after how long, and how many times. */
describe("the client's retry rules", () => {
  it("waits a 429's or a 503's Retry-After, plus at most the jitter", () => {
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

  it("backs off after a 429 without Retry-After; never retries a 503 without it, nor other statuses", () => {
    expect(retryDelay(reply(429), 1, { backoff: { initialDelayMs: 1000 } }, none)).to.equal(500);
    expect(retryDelay(reply(429), 2, { backoff: { initialDelayMs: 1000 } }, all)).to.equal(2000);
    for (const status of [503, 500, 502, 409, 400, 200]) expect(retryDelay(reply(status), 1), String(status)).to.equal(undefined);
  });

  it("stops after maxAttempts, and rather than wait longer than maxDelayMs", () => {
    const limited = reply(429, { "retry-after": "30" });
    expect(retryDelay(limited, 2, { maxAttempts: 3 }, none)).to.equal(30_000);
    expect(retryDelay(limited, 3, { maxAttempts: 3 }, none)).to.equal(undefined);
    expect(retryDelay(limited, 1, { maxAttempts: 1 }, none)).to.equal(undefined);
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
