import { expect } from "chai";
import { createLogger } from "../src/log.js";
import type { RedisClient } from "../src/redis/client.js";
import { OpenStreams } from "../src/streaming/redis/open-streams.js";
import { deploymentsClient, readyDeployment } from "./support/deployments.js";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { testKeys, testRedis } from "./support/redis.js";
import { client, startServer, type TestServer } from "./support/server.js";
import { openSse, type SseConnection } from "./support/sse.js";
import { createSession, until } from "./support/sessions.js";

const PLACES = 3;
let orgs = 0;

describe("open event streams per organization", () => {
  let server: TestServer;
  let other: ServiceProcess;
  let redis: RedisClient;
  const open: SseConnection[] = [];
  const streamOf = (base: string, sessionId: string) => `${base}/v1/sessions/${sessionId}/events/stream`;

  /** A new organization's key and id, and a session of it. */
  async function organization(): Promise<{ key: string; orgId: string; sessionId: string; name: string }> {
    const name = `org-places-${process.pid}-${Date.now()}-${++orgs}`;
    const orgId = await server.core.stores.organizations.ensureOrganization(name);
    const key = await server.newKey(name);
    const { sessionId } = await createSession(client(server.url, key));
    return { key, orgId, sessionId, name };
  }
  async function stream(url: string, key: string): Promise<SseConnection> {
    const sse = await openSse(url, key);
    if (sse.status === 200) open.push(sse);
    return sse;
  }
  const placesTaken = (orgId: string) => redis.zcard(testKeys().openStreams(orgId));

  before(async () => {
    server = await startServer({ SSE_STREAMS_PER_ORGANIZATION: String(PLACES) });
    other = await startProcess("api", { SSE_STREAMS_PER_ORGANIZATION: String(PLACES) });
    redis = testRedis();
  });
  afterEach(() => {
    for (const sse of open.splice(0)) sse.close();
  });
  after(async () => {
    await other.stop();
    await redis.quit();
    await server.close();
  });

  it("refuses one stream more than the organization may hold, with a 429 before any frame, and not another organization's", async () => {
    const org = await organization();
    for (let i = 0; i < PLACES; i++) expect((await stream(streamOf(server.url, org.sessionId), org.key)).status).to.equal(200);

    const refused = await fetch(streamOf(server.url, org.sessionId), { headers: { "x-api-key": org.key, accept: "text/event-stream" } });
    expect(refused.status).to.equal(429);
    expect(refused.headers.get("content-type")).to.match(/^application\/json/);
    expect(refused.headers.get("retry-after")).to.equal("5");
    expect(refused.headers.get("ratelimit-limit")).to.equal(String(PLACES));
    expect(refused.headers.get("ratelimit-remaining")).to.equal("0");
    expect(refused.headers.get("ratelimit-reset")).to.equal("5");
    expect(refused.headers.get("cache-control")).to.equal("no-store");
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body.error).to.equal("rate_limited");
    expect(body.message).to.equal(`this organization has ${PLACES} event streams open, the most it may hold at once; close one before opening another`);
    expect(body).not.to.have.property("rateLimit");
    expect(await placesTaken(org.orgId)).to.equal(PLACES);

    const stranger = await organization();
    expect((await stream(streamOf(server.url, stranger.sessionId), stranger.key)).status).to.equal(200);
  });

  it("gives a place back when its stream closes, whichever side closes it", async () => {
    const org = await organization();
    const streams = [];
    for (let i = 0; i < PLACES; i++) streams.push(await stream(streamOf(server.url, org.sessionId), org.key));
    streams[0]!.close();
    await until(
      () => placesTaken(org.orgId),
      (n) => n === PLACES - 1,
      5_000,
      "the closed stream's place",
    );
    expect((await stream(streamOf(server.url, org.sessionId), org.key)).status).to.equal(200);

    // The server ends them all (a dropped connection): every place comes back.
    server.dropConnections();
    await until(
      () => placesTaken(org.orgId),
      (n) => n === 0,
      5_000,
      "every place",
    );
  });

  it("counts an organization's streams across API processes", async () => {
    const org = await organization();
    expect((await stream(streamOf(server.url, org.sessionId), org.key)).status).to.equal(200);
    for (let i = 1; i < PLACES; i++) expect((await stream(streamOf(other.url, org.sessionId), org.key)).status).to.equal(200);
    // openSse checks a refusal against the served document too.
    expect((await stream(streamOf(server.url, org.sessionId), org.key)).status).to.equal(429);
    expect((await stream(streamOf(other.url, org.sessionId), org.key)).status).to.equal(429);
  });

  it("counts deployments' streams with sessions' for the organization that holds both", async () => {
    const org = await organization();
    const { api, key } = await deploymentsClient(server, undefined, org.name);
    const d = await readyDeployment(api);
    const deploymentStream = `${server.deploymentsUrl}/v1/deployments/${d.deployment_id}/events`;
    for (let i = 0; i < PLACES - 1; i++) expect((await stream(streamOf(server.url, org.sessionId), org.key)).status).to.equal(200);
    const last = await fetch(deploymentStream, { headers: { authorization: `Bearer ${key}` } });
    expect(last.status).to.equal(200);
    const refused = await fetch(deploymentStream, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).to.equal(429);
    expect(((await refused.json()) as { error: string }).error).to.equal("rate_limited");
    await last.body?.cancel();
    await until(
      () => placesTaken(org.orgId),
      (n) => n === PLACES - 1,
      5_000,
      "the deployment stream's place",
    );
  });

  it("does not count the places of a process that died once their leases have ended", async () => {
    const org = await organization();
    const key = testKeys().openStreams(org.orgId);
    // Two streams of a process killed a while ago: their leases ended (by Redis's clock) and nobody renews them.
    const [seconds] = await redis.time();
    await redis.zadd(key, Number(seconds) * 1000 - 2_000, "dead-1", Number(seconds) * 1000 - 1_000, "dead-2");
    for (let i = 0; i < PLACES; i++) expect((await stream(streamOf(server.url, org.sessionId), org.key)).status).to.equal(200);
    expect(await redis.zscore(key, "dead-1")).to.equal(null);
    expect(await placesTaken(org.orgId)).to.equal(PLACES);
  });

  it("renews the leases of streams still open, and gives every place back when the process closes", async () => {
    const keys = testKeys();
    // A lease of 1.5 s, renewed every 0.5 s: a pause of the test machine shorter than a second loses nothing.
    const places = new OpenStreams(redis, keys, 2, createLogger("error"), 1_500);
    const orgId = `org-lease-${process.pid}-${++orgs}`;
    const first = await places.open(orgId);
    await places.open(orgId);
    await new Promise((r) => setTimeout(r, 3_500));
    // Over two lease lengths later both are still held, their ends ahead.
    const held = await redis.zrange(keys.openStreams(orgId), 0, -1, "WITHSCORES");
    const [seconds] = await redis.time();
    expect(held).to.have.length(4);
    for (const end of [held[1], held[3]]) expect(Number(end)).to.be.greaterThan(Number(seconds) * 1000);
    await places.open(orgId).then(
      () => expect.fail("a third place was given"),
      (err: { code: string }) => expect(err.code).to.equal("rate_limited"),
    );
    first();
    await until(
      () => redis.zcard(keys.openStreams(orgId)),
      (n) => n === 1,
      2_000,
      "the first place back",
    );
    await places.close();
    expect(await redis.zcard(keys.openStreams(orgId))).to.equal(0);
    // Closed, the process takes no more places: nobody would renew or give them back.
    await places.open(orgId).then(
      () => expect.fail("a place was given after close"),
      (err: { code: string }) => expect(err.code).to.equal("unavailable"),
    );
    expect(await redis.zcard(keys.openStreams(orgId))).to.equal(0);
  });
});
