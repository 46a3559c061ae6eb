import { expect } from "chai";
import { expectError } from "./support/expect.js";
import { env } from "./support/hooks.js";
import { client, otherDeployment, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";
import { startTcpCut, type TcpCut } from "./support/tcp-cut.js";
import { connectMongo } from "../src/mongo/mongo.js";

const hostPort = (url: string) => {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
};
const through = (url: string, address: string) => {
  const u = new URL(url);
  u.host = address;
  return u.href;
};

describe("store outages", function () {
  this.timeout(120_000);
  let redisCut: TcpCut;
  let mongoCut: TcpCut;
  let server: TestServer;
  let api: Client;

  before(async () => {
    redisCut = await startTcpCut(hostPort(env.redisUrl));
    mongoCut = await startTcpCut(hostPort(env.mongoUrl));
    server = await startServer({
      REDIS_URL: through(env.redisUrl, redisCut.address),
      MONGO_URL: through(env.mongoUrl, mongoCut.address),
      REDIS_KEY_PREFIX: otherDeployment("outage"),
    });
    api = client(server.url, await server.newKey());
  });
  after(async () => {
    await server?.close();
    await Promise.all([redisCut?.close(), mongoCut?.close()]);
  });

  /** A request of each kind: a read, a list, a send. */
  const requests = (sessionId: string) => [
    () => api.get(`/v1/sessions/${sessionId}`),
    () => api.get("/v1/sessions"),
    () => api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.message", content: [{ type: "text", text: "while down" }] }] }),
  ];

  for (const [store, name] of [
    ["redis", "Redis"],
    ["mongodb", "MongoDB"],
  ] as const) {
    it(`answers 503 with Retry-After while ${name} cannot be reached, readiness says so, and all resumes when it is back`, async () => {
      const { sessionId } = await createSession(api);
      await sendText(api, sessionId, "before");
      await settle(api, sessionId, 1);
      const cut = store === "redis" ? redisCut : mongoCut;
      await cut.cut();
      try {
        for (const request of requests(sessionId)) {
          const res = await request();
          expectError(res, 503, "server_error");
          expect(res.headers.get("retry-after")).to.equal("5");
        }
        const ready = await client(server.url).get("/readyz");
        expect(ready.status).to.equal(503);
      } finally {
        await cut.restore();
      }
      await until(
        () => client(server.url).get("/readyz"),
        (r) => r.status === 200,
        30_000,
        "readiness back",
      );
      await sendText(api, sessionId, "after");
      await settle(api, sessionId, 2);
      const texts = (await history(api, sessionId)).filter((e) => e.type === "user.message").map((e) => e.payload.content[0].text);
      expect(texts, "nothing answered 503 was kept").to.deep.equal(["before", "after"]);
    });
  }

  it("a turn that meets MongoDB out of reach waits for it and goes on, instead of ending in error", async () => {
    const lookup = {
      type: "custom_tool",
      name: "lookup",
      description: "Finds an order",
      input_schema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
    };
    const { sessionId } = await createSession(api, { agent: { tools: [lookup] } });
    // The model answers after 2 s with a call that asks for approval, which reads the session's settings from MongoDB.
    await sendText(api, sessionId, '/slow 2000 /tool lookup {"order":"A-1"}');
    await until(
      () => history(api, sessionId),
      (events) => events.some((e) => e.type === "session.status_running"),
      15_000,
      "the turn to start",
    );
    await mongoCut.cut();
    try {
      await new Promise((r) => setTimeout(r, 8_000));
    } finally {
      await mongoCut.restore();
    }
    const events = await until(
      () => history(api, sessionId),
      (list) => list.some((e) => e.type === "session.status_idle"),
      60_000,
      "the turn to pause",
    );
    const idle = events.find((e) => e.type === "session.status_idle");
    expect(idle.payload.stop_reason.type, JSON.stringify(idle.payload)).to.equal("requires_action");
    expect(events.filter((e) => e.type === "agent.approval_request").map((e) => e.payload.tool)).to.deep.equal(["lookup"]);
  });
});

describe("a store that hangs", function () {
  this.timeout(60_000);
  let mongoStall: TcpCut;
  let server: TestServer;
  let api: Client;

  before(async () => {
    mongoStall = await startTcpCut(hostPort(env.mongoUrl));
    const url = new URL(through(env.mongoUrl, mongoStall.address));
    // Shorter than the 20 s default, through MONGO_URL as an operator would set it.
    url.searchParams.set("socketTimeoutMS", "1500");
    server = await startServer({ MONGO_URL: url.href, REDIS_KEY_PREFIX: otherDeployment("stall") });
    api = client(server.url, await server.newKey());
  });
  after(async () => {
    await server?.close();
    await mongoStall?.close();
  });

  it("answers 503 when MongoDB accepts a request and never answers, instead of waiting with it", async () => {
    const { sessionId } = await createSession(api);
    mongoStall.stall();
    try {
      const res = await api.get("/v1/sessions");
      expectError(res, 503, "server_error");
      expect(res.headers.get("retry-after")).to.equal("5");
    } finally {
      mongoStall.flow();
    }
    await until(
      () => api.get(`/v1/sessions/${sessionId}`),
      (r) => r.status === 200,
      30_000,
      "reads again",
    );
  });

  it("bounds every MongoDB operation at 20 s by default; socketTimeoutMS in MONGO_URL replaces it", async () => {
    expect(server.core.connections.mongo.client.options.socketTimeoutMS).to.equal(1500);
    const mongo = await connectMongo(env.mongoUrl);
    try {
      expect(mongo.client.options.socketTimeoutMS).to.equal(20_000);
    } finally {
      await mongo.client.close();
    }
  });
});
