import { expect } from "chai";
import type { RedisClient } from "../src/redis/client.js";
import { testKeys, testRedis } from "./support/redis.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText } from "./support/sessions.js";

/**
 * A session's identity (organization, agent, subject) is kept in its runtime state from creation, so a
 * process new to a session serves its sends, history and stream without its record; sessions created
 * before it was kept there are read from their records.
 */
describe("session identity in the runtime state", () => {
  let server: TestServer;
  let api: Client;
  let other: Client;
  let keys: { own: string; other: string };
  let redis: RedisClient;
  const stateKey = (id: string) => testKeys().sessionState(id);

  before(async () => {
    server = await startServer({ ROLE: "api" });
    keys = { own: await server.newKey(), other: await server.newKey() };
    api = client(server.url, keys.own);
    other = client(server.url, keys.other);
    redis = testRedis();
  });
  after(async () => {
    await redis.quit();
    await server.close();
  });

  it("is written at creation, beside the state", async () => {
    const { sessionId, agentId, subjectId } = await createSession(api);
    const [org, agent, subject] = await redis.hmget(stateKey(sessionId), "org", "agent", "subject");
    expect(org).to.match(/^org_/);
    expect([agent, subject]).to.deep.equal([agentId, subjectId]);
  });

  it("keeps another organization's session not found for sends, history and the stream", async () => {
    const { sessionId } = await createSession(api);
    expect((await sendText(other, sessionId, "not yours")).status).to.equal(404);
    expect((await other.get(`/v1/sessions/${sessionId}/events`)).status).to.equal(404);
    expect((await other.get(`/v1/sessions/${sessionId}/events/stream`)).status).to.equal(404);
    expect(await history(api, sessionId)).to.deep.equal([]);
  });

  it("of a session created before it was kept is read from the record", async () => {
    const { sessionId } = await createSession(api);
    await redis.hdel(stateKey(sessionId), "org", "agent", "subject");
    const fresh = await startServer({ ROLE: "api" });
    try {
      const own = client(fresh.url, keys.own);
      expect((await sendText(own, sessionId, "older session")).status).to.equal(202);
      expect((await client(fresh.url, keys.other).get(`/v1/sessions/${sessionId}/events`)).status).to.equal(404);
      expect((await own.get(`/v1/sessions/${sessionId}/events`)).body.data.map((e: { type: string }) => e.type)).to.deep.equal([
        "user.message",
        "session.status_running",
      ]);
    } finally {
      await fresh.close();
    }
  });
});
