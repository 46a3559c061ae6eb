import { expect } from "chai";
import { Redis } from "ioredis";
import { isAppError } from "../src/errors.js";
import { SessionTransitions, MAX_ATTEMPTS, change, unchanged, type StatusProjection } from "../src/services/session-transitions.js";
import type { EventAppender } from "../src/redis/event-appender.js";
import type { Plan } from "../src/domain/session-state.js";
import { env } from "./support/hooks.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, until, userMessage } from "./support/sessions.js";

/**
 * The one transition function: bounded retries, the record's status projection kept in step with the
 * log, and a record left behind by a writer that died (or could not write it) repaired by the sweep.
 * The API alone, so nothing but the test moves the sessions and no sweep tidies up after it; a repair
 * test runs a scheduler (with its sweep) once it has seen what is to be repaired.
 * `marksOf` reads the writers' marks; `recordOf` the MongoDB record, which lists filter on.
 */
describe("session transitions", () => {
  let server: TestServer;
  let api: Client;
  let redis: Redis;
  const archive: Plan = { drafts: [], state: { status: "archived" }, statuses: [], wake: false };
  const recordOf = (id: string) => server.services.mongo.db.collection("sessions").findOne({ _id: id as never });
  const marksOf = async (id: string) => (await redis.zrange(`${env.redisKeyPrefix}:projections`, 0, -1)).filter((m) => m.startsWith(`${id} `));
  const listed = async (status: string) => ((await api.get(`/v1/sessions?status=${status}`)).body.data as { id: string }[]).map((s) => s.id);
  /** A transition function like the server's, with one of its parts replaced. */
  const transitionsWith = (parts: { appender?: EventAppender; records?: StatusProjection }) => {
    const s = server.services;
    return new SessionTransitions(s.eventLog, parts.appender ?? s.appender, s.intents, s.wakeups, parts.records ?? s.sessionStore, s.log);
  };

  before(async () => {
    server = await startServer({ ROLE: "api" });
    api = client(server.url, await server.newKey());
    redis = new Redis(env.redisUrl);
  });
  after(async () => {
    await redis.quit();
    await server.close();
  });

  it("gives up with a clear error after a bounded number of stale attempts, never looping, and leaves the record as the log has it", async () => {
    const { sessionId } = await createSession(api);
    let planned = 0;
    // Another writer moves the state between every read and append.
    const interfere = async () => void (await redis.hincrby(`${env.redisKeyPrefix}:{${sessionId}}:state`, "v", 1));
    const err = await server.services.transitions
      .run(sessionId, () => (planned++, change(archive, null)), { beforeAppend: interfere })
      .then(() => null, (e: unknown) => e);
    expect(isAppError(err, "busy"), String(err)).to.equal(true);
    expect((err as Error).message).to.match(/retry with exponential backoff/);
    expect(planned).to.equal(MAX_ATTEMPTS);
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("idle");
    expect((await recordOf(sessionId))!.status).to.equal("idle");
    expect(await marksOf(sessionId)).to.deep.equal([]);
  });

  it("of concurrent prompts to an idle session one starts the turn, the rest are 409; the record agrees and no mark is left", async () => {
    const { sessionId } = await createSession(api);
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => sendText(api, sessionId, `prompt ${i}`)));
    expect(replies.map((r) => r.status).sort()).to.deep.equal([202, ...Array(9).fill(409)]);
    for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error).to.equal("invalid_state");
    expect((await recordOf(sessionId))!.status).to.equal("running");
    expect(await listed("running")).to.include(sessionId);
    expect(await marksOf(sessionId)).to.deep.equal([]);
  });

  it("concurrent control events all land, in one gapless sequence", async () => {
    const { sessionId } = await createSession(api);
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.steer", message: `s${i}` }] })));
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
      const frozen: StatusProjection = { projectStatus: () => new Promise<void>(() => undefined) };
      void transitionsWith({ records: frozen }).run(sessionId, () => change(archive, null));
      await until(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body.status === "archived", 5_000, "the append");
      expect((await recordOf(sessionId))!.status, "the record lags its log").to.equal("idle");
      expect(await marksOf(sessionId)).to.have.length(1);
      expect(await listed("archived"), "a list matches the session by its log").to.include(sessionId);
      expect(await listed("idle")).to.not.include(sessionId);
      expect((await api.get("/v1/sessions")).body.data.map((x: { id: string }) => x.id)).to.not.include(sessionId);
      await sweepUntil("the sweep to repair the record", async () => (await recordOf(sessionId))!.status === "archived");
      expect(await marksOf(sessionId)).to.deep.equal([]);
      expect(await listed("archived")).to.include(sessionId);
    });

    it("an append that threw after it ran keeps its mark; the sweep writes the record", async () => {
      const { sessionId } = await createSession(api);
      const dropped = {
        apply: async (id: string, plan: Plan, expected: number | null, fence?: string) => {
          await server.services.appender.apply(id, plan, expected, fence);
          throw new Error("Connection is closed.");
        },
      } as unknown as EventAppender;
      await transitionsWith({ appender: dropped }).run(sessionId, () => change(archive, null)).catch(() => undefined);
      expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("archived");
      expect(await marksOf(sessionId)).to.have.length(1);
      expect(await listed("archived")).to.include(sessionId);
      await sweepUntil("the sweep to write the record", async () => (await recordOf(sessionId))!.status === "archived");
      expect(await marksOf(sessionId)).to.deep.equal([]);
    });

    it("a record write that fails does not hold up the log; the record lags until the sweep repairs it", async () => {
      const { sessionId } = await createSession(api);
      const down: StatusProjection = { projectStatus: () => Promise.reject(new Error("MongoDB is down")) };
      const { applied } = await transitionsWith({ records: down }).run(sessionId, () => change(archive, null));
      expect(applied).to.not.equal(null);
      expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("archived");
      expect((await recordOf(sessionId))!.status, "the record lags its log").to.equal("idle");
      expect(await marksOf(sessionId)).to.have.length(1);
      expect(await listed("idle"), "no reader sees the lag").to.not.include(sessionId);
      expect(await listed("archived")).to.include(sessionId);
      await sweepUntil("the sweep to repair the record", async () => (await recordOf(sessionId))!.status === "archived");
      expect(await listed("archived")).to.include(sessionId);
      expect(await marksOf(sessionId)).to.deep.equal([]);
    });
  });

  it("an attempt that appends nothing (here: fenced) changes nothing and leaves no mark", async () => {
    const { sessionId } = await createSession(api);
    const fenced = { apply: async () => ({ ok: false, reason: "fenced" }) } as unknown as EventAppender;
    const err = await transitionsWith({ appender: fenced }).run(sessionId, () => change(archive, null), { fence: "gone" }).catch((e: unknown) => e);
    expect(isAppError(err, "lock_lost"), String(err)).to.equal(true);
    expect((await recordOf(sessionId))!.status).to.equal("idle");
    expect(await marksOf(sessionId)).to.deep.equal([]);
  });

  it("a commit whose reply came back stale (lost, then re-sent) still gets its record written before the marks go", async () => {
    const { sessionId } = await createSession(api);
    let first = true;
    const lostReply = {
      apply: async (id: string, plan: Plan, expected: number | null, fence?: string) => {
        const result = await server.services.appender.apply(id, plan, expected, fence);
        if (!first) return result;
        first = false;
        return { ok: false, reason: "stale" };
      },
    } as unknown as EventAppender;
    await transitionsWith({ appender: lostReply }).run(sessionId, (state) => (state.status === "archived" ? unchanged(null) : change(archive, null)));
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status).to.equal("archived");
    expect((await recordOf(sessionId))!.status).to.equal("archived");
    expect(await marksOf(sessionId)).to.deep.equal([]);
    expect(await listed("archived")).to.include(sessionId);
  });

  it("a list page stays full when a session being changed is matched out of it", async () => {
    const { sessionId: older } = await createSession(api);
    const { sessionId: newer } = await createSession(api);
    const frozen: StatusProjection = { projectStatus: () => new Promise<void>(() => undefined) };
    void transitionsWith({ records: frozen }).run(newer, () => change(archive, null));
    await until(() => api.get(`/v1/sessions/${newer}`), (r) => r.body.status === "archived", 5_000, "the append");
    const page = (await api.get(`/v1/sessions?status=idle&limit=1`)).body;
    expect(page.data.map((x: { id: string }) => x.id)).to.deep.equal([older]);
  });

  it("once a send is answered the record has the status and version of the log", async () => {
    const { sessionId } = await createSession(api);
    expect((await api.post(`/v1/sessions/${sessionId}/events`, { events: [userMessage("go")] })).status).to.equal(202);
    expect((await history(api, sessionId)).map((e) => e.type)).to.deep.equal(["user.message", "session.status_running"]);
    expect(await listed("running")).to.include(sessionId);
    expect((await recordOf(sessionId))!.statusVersion).to.equal(Number(await redis.hget(`${env.redisKeyPrefix}:{${sessionId}}:state`, "v")));
  });
});
