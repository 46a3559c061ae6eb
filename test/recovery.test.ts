import { expect } from "chai";
import type { RedisClient } from "../src/redis/client.js";
import { testKeys, testRedis } from "./support/redis.js";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

/** Short lock and claim times so a dead worker's turn is taken over within a test's patience. */
const FAST_RECOVERY = { LOCK_TTL_MS: "1000", CLAIM_IDLE_MS: "1500", SWEEP_INTERVAL_MS: "200" };

describe("actor recovery", function () {
  this.timeout(60_000);
  let server: TestServer;
  let api: Client;
  let redis: RedisClient;
  const workers: ServiceProcess[] = [];
  const stateOf = async (sessionId: string) => {
    const turn = await redis.hget(testKeys().sessionState(sessionId), "turn");
    return turn ? (JSON.parse(turn) as { id: string; attempts: number }) : null;
  };

  before(async () => {
    // The API alone: turns run only in the worker processes this suite starts and kills.
    server = await startServer({ ROLE: "api" });
    api = client(server.url, await server.newKey());
    redis = testRedis();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop("SIGKILL")));
  });
  after(async () => {
    await redis.quit();
    await server.close();
  });

  function assertOneCleanTurn(events: any[], text: string) {
    expect(events.map((e) => e.sequence)).to.deep.equal(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.id)).size).to.equal(events.length);
    expect(events.filter((e) => e.type === "user.message")).to.have.length(1);
    expect(events.filter((e) => e.type === "session.status_running")).to.have.length(1);
    expect(events.filter((e) => e.type === "session.status_idle")).to.have.length(1);
    expect(agentTexts(events)).to.deep.equal([text]);
  }

  it("a worker process killed mid-turn is replaced: the turn resumes from the log, nothing lost or doubled", async () => {
    workers.push(await startProcess("worker", FAST_RECOVERY));
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 1500 survive");
    await until(
      () => stateOf(sessionId),
      (t) => t !== null && t.attempts === 1,
      10_000,
      "the worker to take the turn",
    );

    await workers[0]!.stop("SIGKILL");
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("running");
    const replacement = await startProcess("worker", FAST_RECOVERY);
    workers.push(replacement);

    const events = await settle(api, sessionId, 1, 30_000);
    assertOneCleanTurn(events, "echo: survive");
    expect(events.find((e) => e.type === "session.status_idle").payload.stop_reason).to.deep.equal({ type: "end_turn" });
    expect(replacement.output()).to.include("resuming a turn a stopped worker began");
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("idle");
  });

  it("with the default settings, a running worker takes over a killed one's turn as soon as its lock lapses", async () => {
    workers.push(await startProcess("worker"));
    const { sessionId } = await createSession(api);
    // Long enough that the survivor has started (seconds on a loaded machine) before the turn would end.
    await sendText(api, sessionId, "/slow 8000 taken over");
    await until(
      () => stateOf(sessionId),
      (t) => t !== null && t.attempts === 1,
      10_000,
      "the first worker to take the turn",
    );
    const survivor = await startProcess("worker");
    workers.push(survivor);
    await workers[0]!.stop("SIGKILL");
    // The old rule claimed a dead worker's wake-up after 60 s idle; the lock (3 s) and the sweep (1 s) now decide.
    await survivor.waitForLog("resuming a turn a stopped worker began", 20_000);
    const events = await settle(api, sessionId, 1, 20_000);
    assertOneCleanTurn(events, "echo: taken over");
  });

  it("the wake-up consumers of killed workers are removed from the group; a running worker's stays", async () => {
    const killed = [await startProcess("worker"), await startProcess("worker")];
    const survivor = await startProcess("worker");
    workers.push(...killed, survivor);
    const consumers = async () => ((await redis.xinfo("CONSUMERS", testKeys().wakeups(0), "workers")) as unknown[][]).map((flat) => String(flat[1]));
    // Each process start makes a consumer named after its pid.
    const ofProcess = (names: string[], p: ServiceProcess) => names.some((n) => n.includes(`-${p.child.pid}-wrk`));
    await until(consumers, (names) => [...killed, survivor].every((p) => ofProcess(names, p)), 15_000, "every worker's consumer");
    await Promise.all(killed.map((p) => p.stop("SIGKILL")));
    const left = await until(consumers, (names) => !killed.some((p) => ofProcess(names, p)), 20_000, "the killed workers' consumers removed");
    expect(ofProcess(left, survivor)).to.equal(true);
  });

  it("a turn that has failed to finish too often is ended with stop_reason error, never left running", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "doomed");
    // Three workers already died on this turn.
    const key = testKeys().sessionState(sessionId);
    const turn = JSON.parse((await redis.hget(key, "turn"))!);
    await redis.hset(key, "turn", JSON.stringify({ ...turn, attempts: 3 }));

    workers.push(await startProcess("worker", FAST_RECOVERY));
    const events = await settle(api, sessionId, 1, 30_000);
    const idle = events.find((e) => e.type === "session.status_idle");
    expect(idle.payload.stop_reason.type).to.equal("error");
    expect(idle.payload.stop_reason.message).to.match(/stopped before it finished/);
    expect(agentTexts(events)).to.deep.equal([]);
    expect(events.find((e) => e.type === "user.message").status).to.equal("processed");
  });

  it("a wake-up lost before any worker saw it is recovered from the session's hint", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "lost and found");
    // Simulate an API pod dying between the append and the hand-off: the wake-up never arrives.
    await Promise.all(
      testKeys()
        .allShards()
        .map((shard) => redis.del(testKeys().wakeups(shard))),
    );
    workers.push(await startProcess("worker", FAST_RECOVERY));
    const events = await settle(api, sessionId, 1, 30_000);
    assertOneCleanTurn(events, "echo: lost and found");
  });

  it("a writer whose lock has expired cannot append (fencing token)", async () => {
    const { sessionId } = await createSession(api);
    const log = server.core.redis.appender;
    const plan = { drafts: [], state: { status: "idle" as const }, statuses: [], wake: false };
    await redis.set(testKeys().sessionLock(sessionId), "current-holder", "PX", 5_000);
    expect(await log.apply(sessionId, plan, { reads: [], fence: "stale-holder", projection: null })).to.deep.equal({ ok: false, reason: "fenced" });
    expect((await log.apply(sessionId, plan, { reads: [], fence: "current-holder", projection: null })).ok).to.equal(true);
    expect(await history(api, sessionId)).to.deep.equal([]);
  });

  it("a SIGTERM'd worker hands its running turn over instead of finishing it half-way", async () => {
    const first = await startProcess("worker", FAST_RECOVERY);
    workers.push(first);
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 1500 handed over");
    await until(
      () => stateOf(sessionId),
      (t) => t !== null && t.attempts === 1,
      10_000,
      "the worker to take the turn",
    );
    expect(await first.stop("SIGTERM")).to.equal(0);
    workers.push(await startProcess("worker", FAST_RECOVERY));
    const events = await settle(api, sessionId, 1, 30_000);
    assertOneCleanTurn(events, "echo: handed over");
  });
});
