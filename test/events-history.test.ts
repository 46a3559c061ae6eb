import { expect } from "chai";
import type { RedisClient } from "../src/redis/client.js";
import { testKeys, testRedis } from "./support/redis.js";
import { startServer, type Client, type TestServer } from "./support/server.js";
import { allEvents, completeTurn, createAgent, createSession, newTenant, sendOk, steer } from "./support/api.js";

describe("GET events (history)", () => {
  let server: TestServer;
  let redis: RedisClient;
  let api: Client;
  let sessionId: string;
  /** The whole log as one request returns it. */
  let log: any[];

  before(async () => {
    server = await startServer();
    redis = testRedis();
    api = await newTenant(server);
    const agent = await createAgent(api);
    sessionId = (await createSession(api, agent.id)).id;
    await completeTurn(api, sessionId, "first question");
    await sendOk(api, sessionId, [steer("one"), steer("two"), { type: "user.interrupt" }]);
    await completeTurn(api, sessionId, "second question");
    const res = await api.get(`/v1/sessions/${sessionId}/events`);
    expect(res.status).to.equal(200);
    log = res.body.data;
  });
  after(async () => {
    redis.disconnect();
    await server.close();
  });

  it("lists {object: list, data, pagination: {after, hasMore, limit}} with limit 100 by default", async () => {
    const res = await api.get(`/v1/sessions/${sessionId}/events`);
    expect(Object.keys(res.body).sort()).to.deep.equal(["data", "object", "pagination"]);
    expect(res.body.object).to.equal("list");
    expect(res.body.pagination).to.deep.equal({ after: log.length, hasMore: false, limit: 100 });
  });

  it("holds both turns in sequence order, gapless from 1", async () => {
    expect(log.length).to.be.greaterThan(10);
    expect(log.map((e) => e.sequence)).to.deep.equal(log.map((_, i) => i + 1));
    const types = log.map((e) => e.type);
    expect(types.slice(0, 3)).to.deep.equal(["user.message", "session.status_running", "agent.message"]);
    expect(types.filter((t) => t === "session.status_idle")).to.have.length(2);
    expect(types.filter((t) => t === "user.steer")).to.have.length(2);
  });

  it("holds no live-only frames", async () => {
    for (const e of log) {
      expect(e.sequence, e.type).to.be.a("number");
      expect(e.status, e.type).to.not.equal("streaming");
      if (e.type === "agent.message") expect(e.payload.delta, "agent.message delta").to.equal(false);
    }
    const replies = log.filter((e) => e.type === "agent.message").map((e) => e.payload.content[0].text);
    expect(replies).to.have.length(2);
    expect(replies[0]).to.equal("echo: first question");
    expect(replies[1]).to.match(/^echo: second question/);
  });

  it("shows an answered user.message as processed", async () => {
    const prompts = log.filter((e) => e.type === "user.message");
    expect(prompts).to.have.length(2);
    for (const p of prompts) {
      expect(p.status).to.equal("processed");
      expect(p.processedAt).to.be.a("string");
    }
  });

  it("`after` is exclusive", async () => {
    const res = await api.get(`/v1/sessions/${sessionId}/events?after=3`);
    expect(res.body.data.map((e: any) => e.id)).to.deep.equal(log.slice(3).map((e) => e.id));
    expect(res.body.pagination).to.deep.equal({ after: log.length, hasMore: false, limit: 100 });
  });

  it("`limit` caps the page and hasMore tells there is more", async () => {
    const res = await api.get(`/v1/sessions/${sessionId}/events?after=2&limit=3`);
    expect(res.body.data.map((e: any) => e.sequence)).to.deep.equal([3, 4, 5]);
    expect(res.body.pagination).to.deep.equal({ after: 5, hasMore: true, limit: 3 });
    const one = await api.get(`/v1/sessions/${sessionId}/events?limit=1`);
    expect(one.body.data.map((e: any) => e.sequence)).to.deep.equal([1]);
  });

  it("paging with pagination.after walks the whole log without gaps or duplicates", async () => {
    for (const size of [1, 4, 100]) {
      const walked = await allEvents(api, sessionId, size);
      expect(
        walked.map((e) => e.id),
        `page size ${size}`,
      ).to.deep.equal(log.map((e) => e.id));
    }
  });

  it("an empty page past the end keeps the requested after", async () => {
    const res = await api.get(`/v1/sessions/${sessionId}/events?after=${log.length + 5}&limit=10`);
    expect(res.body.data).to.deep.equal([]);
    expect(res.body.pagination).to.deep.equal({ after: log.length + 5, hasMore: false, limit: 10 });
    const last = await api.get(`/v1/sessions/${sessionId}/events?after=${log.length}`);
    expect(last.body.data).to.deep.equal([]);
    expect(last.body.pagination.after).to.equal(log.length);
  });

  it("refuses a bad after or limit with 400 validation_error", async () => {
    for (const query of [
      "limit=0",
      "limit=101",
      "limit=abc",
      "limit=1.5",
      "after=-1",
      "after=abc",
      "after=99999999999999999999",
      "after=1&after=2",
      "cursor=1",
    ]) {
      const res = await api.get(`/v1/sessions/${sessionId}/events?${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.error).to.equal("validation_error");
    }
  });

  it("an operator's XRANGE of the log key shows type, seq and the envelope", async () => {
    const entries = await redis.xrange(testKeys().sessionLog(sessionId), "-", "+");
    expect(entries).to.have.length(log.length);
    entries.forEach(([id, fields], i) => {
      const f: Record<string, string> = {};
      for (let k = 0; k + 1 < fields.length; k += 2) f[fields[k]!] = fields[k + 1]!;
      const expected = log[i];
      expect(id).to.equal(`${expected.sequence}-0`);
      expect(f.type).to.equal(expected.type);
      expect(Number(f.seq)).to.equal(expected.sequence);
      const envelope = JSON.parse(f.env!);
      // History merges the current status (and processedAt) from an overlay; the rest is the stored envelope.
      const { status: _s1, processedAt: _p1, ...stored } = envelope;
      const { status: _s2, processedAt: _p2, ...listed } = expected;
      expect(stored, expected.type).to.deep.equal(listed);
    });
  });
});
