import { expect } from "chai";
import { isAppError } from "../src/errors.js";
import { SessionTransitions, MAX_ATTEMPTS, change, unchanged } from "../src/sessions/transitions.js";
import { StatusProjector, type StatusProjection } from "../src/sessions/status-projector.js";
import type { Commit, EventAppender } from "../src/sessions/redis/event-appender.js";
import type { Plan } from "../src/sessions/domain/session-state.js";
import type { RedisClient } from "../src/redis/client.js";
import { testKeys, testRedis } from "./support/redis.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, until, userMessage } from "./support/sessions.js";

/**
 * The one transition function: commits checked on what the plan read, bounded retries, the record's
 * status projection following the log, and a record left behind by a writer that died (or could not
 * write it) repaired by the sweep.
 * The API alone, so nothing but the test moves the sessions and no sweep tidies up after it; a repair
 * test runs a scheduler (with its sweep) once it has seen what is to be repaired.
 * `marksOf` reads the writers' marks; `recordOf` the MongoDB record, which lists filter on.
 */
describe("session transitions", () => {
  let server: TestServer;
  let api: Client;
  let redis: RedisClient;
  const archive: Plan = { drafts: [], state: { status: "archived" }, statuses: [], wake: false };
  const recordOf = (id: string) => server.core.stores.sessions.byId(id);
  const marksOf = async (id: string) => (await redis.zrange(testKeys().projections(testKeys().shardOf(id)), 0, -1)).filter((m) => m.startsWith(`${id} `));
  const listed = async (status: string) => ((await api.get(`/v1/sessions?status=${status}`)).body.data as { id: string }[]).map((s) => s.id);
  /** A transition function like the server's, with one of its parts replaced. */
  const transitionsWith = (parts: { appender?: EventAppender; records?: StatusProjection }) => {
    const s = server.core;
    const records = parts.records ?? s.stores.sessions;
    return new SessionTransitions(
      s.redis.eventLog,
      parts.appender ?? s.redis.appender,
      s.redis.intents,
      new StatusProjector(records, s.redis.intents, (ids) => s.redis.eventLog.summaries(ids), s.process.log),
      records,
    );
  };

  before(async () => {
    server = await startServer({ ROLE: "api" });
    api = client(server.url, await server.newKey());
    redis = testRedis();
  });
  after(async () => {
    await redis.quit();
    await server.close();
  });

  it("a commit planned from an older snapshot writes back only what it changed: the record keeps a newer usage total", async () => {
    const { sessionId } = await createSession(api);
    const older = await server.core.redis.eventLog.snapshot(sessionId);
    const usage = {
      model: "mock/echo",
      input: 7,
      output: 1,
      cache_read: 0,
      cache_write: 0,
      reasoning: 0,
      total: 8,
      calls: 1,
      context_used: 8,
      context_max: 100,
      context_percent: 8,
      cost_status: "included" as const,
      last_turn_latency_ms: 1,
      latency_ms: 1,
    };
    // One process ends a turn (its usage total), another then changes the status from a snapshot read before that.
    await transitionsWith({}).run(sessionId, () => change({ drafts: [], state: { status: "idle", usage }, statuses: [], wake: false }, null));
    // One write at a time: FerretDB v1 applies an update as read, modify, write of the whole document.
    await until(
      () => recordOf(sessionId),
      (r) => r?.usage !== null,
      5_000,
      "the first record write",
    );
    await transitionsWith({}).run(sessionId, () => change(archive, null), { from: older });
    const record = await until(
      () => recordOf(sessionId),
      (r) => r?.status === "archived",
      5_000,
      "the second record write",
    );
    expect(record!.usage).to.deep.equal(usage);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.usage).to.deep.equal(usage);
  });

  it("gives up with a clear error after a bounded number of stale attempts, never looping, and leaves the record as the log has it", async () => {
    const { sessionId } = await createSession(api);
    let planned = 0;
    // Another writer changes a field the plan read between every read and commit.
    const interfering = {
      apply: async (id: string, plan: Plan, commit: Commit) => {
        await redis.hset(testKeys().sessionState(id), "interrupt", `other-${planned}`);
        return server.core.redis.appender.apply(id, plan, commit);
      },
    } as unknown as EventAppender;
    const err = await transitionsWith({ appender: interfering })
      .run(sessionId, (state) => (planned++, state.interrupt === "never" ? unchanged(null) : change(archive, null)))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isAppError(err, "busy"), String(err)).to.equal(true);
    expect((err as Error).message).to.match(/retry with exponential backoff/);
    expect(planned).to.equal(MAX_ATTEMPTS);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("idle");
    expect((await recordOf(sessionId))!.status).to.equal("idle");
    expect(await marksOf(sessionId)).to.deep.equal([]);
  });

  it("a change to a field the plan did not read does not refuse its commit (the check is on what it read)", async () => {
    const { sessionId } = await createSession(api);
    let planned = 0;
    const interfering = {
      apply: async (id: string, plan: Plan, commit: Commit) => {
        await redis.hset(testKeys().sessionState(id), "interrupt", `other-${planned}`);
        expect(commit.reads.map(([field]) => field)).to.deep.equal(["status"]);
        return server.core.redis.appender.apply(id, plan, commit);
      },
    } as unknown as EventAppender;
    const { applied } = await transitionsWith({ appender: interfering }).run(
      sessionId,
      (state) => (planned++, state.status === "idle" ? change(archive, null) : unchanged(null)),
    );
    expect(applied).to.not.equal(null);
    expect(planned).to.equal(1);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("archived");
  });

  it("of concurrent prompts to an idle session one starts the turn, the rest are 409; the record agrees and no mark is left", async () => {
    const { sessionId } = await createSession(api);
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => sendText(api, sessionId, `prompt ${i}`)));
    expect(replies.map((r) => r.status).sort()).to.deep.equal([202, ...Array(9).fill(409)]);
    for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error).to.equal("invalid_state");
    expect(await listed("running")).to.include(sessionId);
    await until(
      async () => ({ record: await recordOf(sessionId), marks: await marksOf(sessionId) }),
      (x) => x.record!.status === "running" && x.marks.length === 0,
      5_000,
      "the record to follow the log",
    );
  });

  it("concurrent control events all land, in one gapless sequence", async () => {
    const { sessionId } = await createSession(api);
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.steer", message: `s${i}` }] })),
    );
    expect(replies.map((r) => r.status)).to.deep.equal(Array(40).fill(202));
    const events = await history(api, sessionId);
    expect(events.map((e) => e.sequence)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  describe("repaired by the recovery sweep", () => {
    /** Runs a scheduler, whose sweep runs every 200 ms, until `repaired` holds. */
    async function sweepUntil(what: string, repaired: () => Promise<boolean>): Promise<void> {
      const scheduler = await startServer({ ROLE: "scheduler", SWEEP_INTERVAL_MS: "200" });
      try {
        await until(repaired, (done) => done, 10_000, what);
      } finally {
        await scheduler.close();
      }
    }

    it("a writer that stops between its append and its record write leaves the record lagging and its mark; lists match by the log; the sweep repairs it", async () => {
      const { sessionId } = await createSession(api);
      const frozen: StatusProjection = { projectState: () => new Promise<void>(() => undefined), projectStates: () => new Promise(() => undefined) };
      void transitionsWith({ records: frozen }).run(sessionId, () => change(archive, null));
      await until(
        () => api.get(`/v1/sessions/${sessionId}`),
        (r) => r.body.status === "archived",
        5_000,
        "the append",
      );
      expect((await recordOf(sessionId))!.status, "the record lags its log").to.equal("idle");
      expect(await marksOf(sessionId)).to.have.length(1);
      expect(await listed("archived"), "a list matches the session by its log").to.include(sessionId);
      expect(await listed("idle")).to.not.include(sessionId);
      expect((await api.get("/v1/sessions")).body.data.map((x: { id: string }) => x.id)).to.not.include(sessionId);
      // The repair writes the record, queues its notices, then clears the mark: both are waited for.
      await sweepUntil(
        "the sweep to repair the record and clear its mark",
        async () => (await recordOf(sessionId))!.status === "archived" && (await marksOf(sessionId)).length === 0,
      );
      expect(await marksOf(sessionId)).to.deep.equal([]);
      expect(await listed("archived")).to.include(sessionId);
    });

    it("an append that threw after it ran keeps its mark; the sweep writes the record", async () => {
      const { sessionId } = await createSession(api);
      const dropped = {
        apply: async (id: string, plan: Plan, commit: Commit) => {
          await server.core.redis.appender.apply(id, plan, commit);
          throw new Error("Connection is closed.");
        },
      } as unknown as EventAppender;
      await transitionsWith({ appender: dropped })
        .run(sessionId, () => change(archive, null))
        .catch(() => undefined);
      expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("archived");
      expect(await marksOf(sessionId)).to.have.length(1);
      expect(await listed("archived")).to.include(sessionId);
      // The repair writes the record, queues its notices, then clears the mark: both are waited for.
      await sweepUntil(
        "the sweep to write the record and clear its mark",
        async () => (await recordOf(sessionId))!.status === "archived" && (await marksOf(sessionId)).length === 0,
      );
      expect(await marksOf(sessionId)).to.deep.equal([]);
    });

    it("a record write that fails does not hold up the log; the record lags until the sweep repairs it", async () => {
      const { sessionId } = await createSession(api);
      const down: StatusProjection = {
        projectState: () => Promise.reject(new Error("MongoDB is down")),
        projectStates: () => Promise.reject(new Error("MongoDB is down")),
      };
      const { applied } = await transitionsWith({ records: down }).run(sessionId, () => change(archive, null));
      expect(applied).to.not.equal(null);
      expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("archived");
      expect((await recordOf(sessionId))!.status, "the record lags its log").to.equal("idle");
      expect(await marksOf(sessionId)).to.have.length(1);
      expect(await listed("idle"), "no reader sees the lag").to.not.include(sessionId);
      expect(await listed("archived")).to.include(sessionId);
      // The repair writes the record, queues its notices, then clears the mark: both are waited for.
      await sweepUntil(
        "the sweep to repair the record and clear its mark",
        async () => (await recordOf(sessionId))!.status === "archived" && (await marksOf(sessionId)).length === 0,
      );
      expect(await listed("archived")).to.include(sessionId);
      expect(await marksOf(sessionId)).to.deep.equal([]);
    });
  });

  it("an attempt that appends nothing (here: fenced) changes nothing and leaves no mark", async () => {
    const { sessionId } = await createSession(api);
    const fenced = { apply: async () => ({ ok: false, reason: "fenced" }) } as unknown as EventAppender;
    const err = await transitionsWith({ appender: fenced })
      .run(sessionId, () => change(archive, null), { fence: "gone" })
      .catch((e: unknown) => e);
    expect(isAppError(err, "lock_lost"), String(err)).to.equal(true);
    expect((await recordOf(sessionId))!.status).to.equal("idle");
    expect(await marksOf(sessionId)).to.deep.equal([]);
  });

  it("a list page stays full when a session being changed is matched out of it", async () => {
    const { sessionId: older } = await createSession(api);
    const { sessionId: newer } = await createSession(api);
    const frozen: StatusProjection = { projectState: () => new Promise<void>(() => undefined), projectStates: () => new Promise(() => undefined) };
    void transitionsWith({ records: frozen }).run(newer, () => change(archive, null));
    await until(
      () => api.get(`/v1/sessions/${newer}`),
      (r) => r.body.status === "archived",
      5_000,
      "the append",
    );
    const page = (await api.get(`/v1/sessions?status=idle&limit=1`)).body;
    expect(page.data.map((x: { id: string }) => x.id)).to.deep.equal([older]);
  });

  it("after a send is answered the record follows the log: its status and version, then no mark", async () => {
    const { sessionId } = await createSession(api);
    expect((await api.post(`/v1/sessions/${sessionId}/events`, { events: [userMessage("go")] })).status).to.equal(202);
    expect((await history(api, sessionId)).map((e) => e.type)).to.deep.equal(["user.message", "session.status_running"]);
    expect(await listed("running"), "lists agree with the log at once").to.include(sessionId);
    const version = Number(await redis.hget(testKeys().sessionState(sessionId), "v"));
    await until(
      async () => ({ record: await recordOf(sessionId), marks: await marksOf(sessionId) }),
      (x) => x.record!.statusVersion === version && x.record!.status === "running" && x.marks.length === 0,
      5_000,
      "the record to follow the log",
    );
  });

  it("32 concurrent writers to one session are all served: steers and queued prompts land in one gapless sequence, no 503", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 2000 keep the turn running");
    const replies = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        i % 2 === 0
          ? api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.steer", message: `s${i}` }] })
          : api.post(`/v1/sessions/${sessionId}/events`, { events: [userMessage(`queued ${i}`)], delivery: "when_idle" }),
      ),
    );
    expect(replies.map((r) => r.status)).to.deep.equal(Array(32).fill(202));
    const state = await server.core.redis.eventLog.state(sessionId);
    expect(state.queue).to.have.length(16);
    const sequences = (await history(api, sessionId)).map((e) => e.sequence);
    expect(sequences).to.deep.equal(Array.from({ length: sequences.length }, (_, i) => i + 1));
  });
});
