/** Forks: a new session whose history is another's up to an idle point, with new ids and its references renamed. */
import { expect } from "chai";
import type { RedisClient } from "../src/redis/client.js";
import type { Keys } from "../src/redis/keys.js";
import { ForkCopier } from "../src/sessions/redis/fork-copier.js";
import { testKeys, testRedis } from "./support/redis.js";
import { startServer, type Client, type TestServer } from "./support/server.js";
import { allEvents, createAgent, createSession, message, newSubject, newTenant, sendOk } from "./support/api.js";
import { roomInWindow } from "./support/expect.js";
import { EVENTS_PER_TURN, seedTurns } from "./support/seed-log.js";
import { allow, lookup, toolset } from "./tools-cases.js";

/** The payload fields that name another event, by the events that carry them. */
const REFERENCES = ["id", "tool_use_id", "approval_id", "request_id"];

describe("session forks", () => {
  let server: TestServer;
  let redis: RedisClient;
  let api: Client;
  let keys: Keys;
  before(async () => {
    server = await startServer();
    keys = testKeys();
    redis = testRedis();
    api = await newTenant(server);
  });
  after(async () => {
    redis.disconnect();
    await server.close();
  });

  const fork = (id: string, body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
    api.post(`/v1/sessions/${id}/fork`, body, headers ? { headers } : undefined);

  /** Waits until the session's last turn event is a turn's end (and its title written) and the session is at rest (`status`). */
  async function rested(id: string, status = "idle"): Promise<any[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const session = (await api.get(`/v1/sessions/${id}`)).body;
      const events = session.status === status ? await allEvents(api, id) : [];
      const turnEvent = events.findLast((e) => e.type.startsWith("session.status_"));
      if (turnEvent?.type === "session.status_idle" && (status !== "idle" || session.title !== null)) return events;
      if (Date.now() > deadline)
        throw new Error(
          `session ${id} did not come to rest (${status}): ${session.status} ${JSON.stringify((await allEvents(api, id)).map((e) => [e.type, e.payload.stop_reason]))}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const texts = (events: any[]) => events.filter((e) => e.type === "agent.message").map((e) => e.payload.content[0].text);

  /** A conversation with a plain turn, an approved custom tool's call and its result, an answered question and a denied call. */
  async function conversation(): Promise<{ id: string; events: any[] }> {
    const agent = await createAgent(api, { tools: [lookup(), toolset(allow, [{ name: "todo", permissionPolicy: { type: "always_deny" } }])] });
    const { id } = await createSession(api, agent.id, { metadata: { team: "a" } });
    await sendOk(api, id, [message("hello")]);
    await rested(id);
    await sendOk(api, id, [message('/tool lookup {"order":"A-1"}')]);
    const asked = (await rested(id, "waiting_on_human")).find((e) => e.type === "agent.approval_request");
    await sendOk(api, id, [{ type: "user.approval_response", approval_id: asked.id, result: "allow" }]);
    const deadline = Date.now() + 15_000;
    let use: any;
    while (!(use = (await allEvents(api, id)).find((e) => e.type === "agent.custom_tool_use")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    await rested(id, "waiting_on_human");
    await sendOk(api, id, [{ type: "user.custom_tool_result", tool_use_id: use.payload.id, content: [{ type: "text", text: "shipped" }] }]);
    await rested(id);
    await sendOk(api, id, [message("/clarify Which colour? | red | blue")]);
    const question = (await rested(id, "waiting_on_human")).find((e) => e.type === "agent.clarify_request");
    await sendOk(api, id, [{ type: "user.clarify_result", request_id: question.payload.request_id, answer: "red" }]);
    await rested(id);
    await sendOk(api, id, [message("/tool todo {}")]);
    return { id, events: await rested(id) };
  }

  /** The copy's events stand for the original's one for one, with new ids and every reference renamed alike. */
  function expectCopy(original: any[], copy: any[], forkId: string): void {
    expect(copy.map((e) => [e.sequence, e.type])).to.deep.equal(original.map((e) => [e.sequence, e.type]));
    const names = new Map<string, string>();
    const rename = (old: string, now: string) => {
      expect(now, old).to.not.equal(old);
      if (names.has(old)) expect(now, old).to.equal(names.get(old));
      names.set(old, now);
    };
    original.forEach((e, i) => rename(e.id, copy[i].id));
    original.forEach((e, i) => {
      const c = copy[i];
      expect(c.sessionId).to.equal(forkId);
      if (e.turnId) rename(e.turnId, c.turnId);
      for (const field of REFERENCES) if (typeof e.payload[field] === "string") rename(e.payload[field], c.payload[field]);
      (e.payload.stop_reason?.event_ids ?? []).forEach((old: string, k: number) => rename(old, c.payload.stop_reason.event_ids[k]));
      const strip = (x: any) => ({
        ...x,
        id: 0,
        sessionId: 0,
        turnId: 0,
        payload: { ...x.payload, ...Object.fromEntries(REFERENCES.map((f) => [f, 0])), stop_reason: 0 },
      });
      expect(strip(c)).to.deep.equal(strip(e));
    });
    expect(new Set(names.values()).size).to.equal(names.size);
  }

  it("copies a finished conversation with new ids, its references renamed; a turn on the fork sees the copy, the original is unchanged", async () => {
    const { id, events } = await conversation();
    const types = events.map((e) => e.type);
    for (const t of [
      "agent.approval_request",
      "user.approval_response",
      "agent.custom_tool_use",
      "user.custom_tool_result",
      "agent.clarify_request",
      "user.clarify_result",
      "agent.tool_result",
    ]) {
      expect(types).to.include(t);
    }
    const original = (await api.get(`/v1/sessions/${id}`)).body;
    const res = await fork(id);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.headers.get("ratelimit-remaining")).to.not.equal(null);
    const forked = res.body;
    expect(forked.id).to.not.equal(id);
    expect(forked).to.include({
      agentId: original.agentId,
      agentVersion: original.agentVersion,
      subjectId: original.subjectId,
      role: original.role,
      title: original.title,
      status: "idle",
    });
    expect(forked.metadata).to.deep.equal({ team: "a" });
    expect(forked.forkedFrom).to.deep.equal({ sessionId: id, sequence: events.length });
    expect(forked.usage).to.include({ total: 0, calls: 0, context_used: events.at(-1).usage.context_used });
    expect((await api.get(`/v1/sessions/${forked.id}`)).body.forkedFrom).to.deep.equal(forked.forkedFrom);
    expectCopy(events, await allEvents(api, forked.id), forked.id);

    await sendOk(api, forked.id, [message("/context")]);
    const after = await rested(forked.id);
    expect(after).to.have.length(events.length + 4);
    expect(texts(after).at(-1)).to.match(/^context: \d+ messages; first: hello/);
    expect(await allEvents(api, id)).to.deep.equal(events);
    expect((await api.get(`/v1/sessions/${id}`)).body.forkedFrom).to.equal(undefined);
  });

  it("forks at an earlier idle point with a title and metadata of its own; refuses a cut inside a turn, or past the log, with 409", async () => {
    const { id, events } = await conversation();
    const firstEnd = events.find((e) => e.type === "session.status_idle").sequence;
    const res = await fork(id, { atSequence: firstEnd, title: "Branch", metadata: { b: 1 } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ title: "Branch" });
    expect(res.body.metadata).to.deep.equal({ b: 1 });
    expect(res.body.forkedFrom).to.deep.equal({ sessionId: id, sequence: firstEnd });
    expectCopy(events.slice(0, firstEnd), await allEvents(api, res.body.id), res.body.id);

    const paused = events.find((e) => e.type === "session.status_idle" && e.payload.stop_reason.type === "requires_action").sequence;
    const prompt = events.find((e) => e.type === "user.message" && e.sequence > firstEnd).sequence;
    for (const atSequence of [paused, prompt, prompt + 1, events.length + 1]) {
      const refused = await fork(id, { atSequence });
      expect(refused.status, String(atSequence)).to.equal(409);
      expect(refused.body.error).to.equal("invalid_state");
      expect(refused.body.message).to.contain(`atSequence: ${atSequence}`);
    }
    const listed = (await api.get(`/v1/sessions?subjectId=${res.body.subjectId}`)).body.data;
    expect(listed).to.have.length(2);
  });

  it("refuses the default cut of a session waiting on a custom tool with 409; another organization's or an unknown session is 404", async () => {
    const agent = await createAgent(api, { tools: [lookup({ permissionPolicy: { type: "always_allow" } })] });
    const { id } = await createSession(api, agent.id);
    await sendOk(api, id, [message('/tool lookup {"order":"B-2"}')]);
    await rested(id, "waiting_on_human");
    const refused = await fork(id);
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal("invalid_state");

    const stranger = await newTenant(server);
    expect((await stranger.post(`/v1/sessions/${id}/fork`, {})).status).to.equal(404);
    expect((await fork("ses_doesnotexist")).status).to.equal(404);
    for (const body of [{ atSequence: 0 }, { atSequence: "1" }, { title: "" }, { other: 1 }]) {
      expect((await fork(id, body)).status, JSON.stringify(body)).to.equal(400);
    }
  });

  it("counts a conversation: 429 with the allowance's body when exhausted, and nothing made; an archived session may be forked", async () => {
    await roomInWindow(5_000);
    const agent = await createAgent(api, { rateLimits: { conversationsPerMinute: 2 } });
    const subjectId = newSubject();
    const { id } = await createSession(api, agent.id, { subjectId });
    expect((await api.post(`/v1/sessions/${id}/archive`)).status).to.equal(200);
    const first = await fork(id);
    expect(first.status).to.equal(201);
    expect(first.body.status).to.equal("idle");
    expect(first.headers.get("ratelimit-remaining")).to.equal("0");
    const refused = await fork(id);
    expect(refused.status).to.equal(429);
    expect(refused.body.rateLimit).to.include({ resource: "conversations", limit: 2, remaining: 0 });
    expect(refused.headers.get("retry-after")).to.not.equal(null);
    const listed = (await api.get(`/v1/sessions?subjectId=${subjectId}&status=idle`)).body.data;
    expect(listed.map((s: any) => s.id)).to.deep.equal([first.body.id]);
  });

  it("replays a fork under the same Idempotency-Key, making one session", async () => {
    const agent = await createAgent(api);
    const { id, subjectId } = await createSession(api, agent.id);
    const headers = { "idempotency-key": `fork-${Date.now()}` };
    const first = await fork(id, { title: "Once" }, headers);
    const again = await fork(id, { title: "Once" }, headers);
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(again.body.id).to.equal(first.body.id);
    expect(again.headers.get("idempotent-replayed")).to.equal("true");
    expect((await api.get(`/v1/sessions?subjectId=${subjectId}`)).body.data).to.have.length(2);
  });

  it("forks a session that delegated (its thread events renamed but for the child they name) and a child thread (a session of its own)", async () => {
    const callee = await createAgent(api, { name: "helper" });
    const caller = await createAgent(api, {
      callableAgents: [{ agentId: callee.id, description: "helps" }],
      tools: [toolset(allow, [{ name: "delegation", permissionPolicy: allow }])],
    });
    const { id } = await createSession(api, caller.id);
    await sendOk(api, id, [message(`/tool delegate__${callee.id} ${JSON.stringify({ message: "count the stars" })}`)]);
    const events = await rested(id);
    const sent = events.find((e) => e.type === "agent.thread_message_sent");
    const child = sent.payload.thread_id as string;

    const res = await fork(id);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const copy = await allEvents(api, res.body.id);
    expectCopy(events, copy, res.body.id);
    const use = copy.find((e) => e.type === "agent.tool_use");
    for (const t of ["agent.thread_message_sent", "agent.thread_message_received"]) {
      expect(copy.find((e) => e.type === t).payload).to.deep.include({ thread_id: child, tool_use_id: use.id });
    }

    const thread = await fork(child);
    expect(thread.status, JSON.stringify(thread.body)).to.equal(201);
    expect((await api.get(`/v1/sessions/${child}`)).body.parent).to.include({ sessionId: id });
    expect(thread.body.parent).to.equal(undefined);
    expect(thread.body.forkedFrom.sessionId).to.equal(child);
  });

  it("a copy that stopped midway leaves keys that expire, no state and no session; a later page without its earlier ones is refused", async () => {
    const copier = new ForkCopier(redis, keys);
    const id = `ses_halfcopied${Date.now()}`;
    const entry = (sequence: number) => ({ sequence, type: "session.status_running", turn: "", env: JSON.stringify({ id: `evt_${sequence}` }) });
    await copier.page(id, 1, [entry(1), entry(2)], null);
    expect(await redis.xlen(keys.sessionLog(id))).to.equal(2);
    for (const key of [keys.sessionLog(id), keys.sessionSeq(id)]) expect(await redis.pttl(key)).to.be.greaterThan(0);
    expect(await redis.exists(keys.sessionState(id))).to.equal(0);
    expect((await api.get(`/v1/sessions/${id}`)).status).to.equal(404);
    expect((await api.post(`/v1/sessions/${id}/events`, { events: [message("hi")] })).status).to.equal(404);
    try {
      await copier.page(id, 4, [entry(4)], null);
      expect.fail("a page after a hole was appended");
    } catch (err) {
      expect((err as Error).message).to.contain("expired");
    }
    expect(await redis.xlen(keys.sessionLog(id))).to.equal(2);
    await redis.del(...keys.sessionKeys(id));
  });

  it("forks a 10,000-event session: every event copied in order, references renamed", async () => {
    const agent = await createAgent(api);
    const { id } = await createSession(api, agent.id);
    const last = await seedTurns(redis, keys, id, 10_000 / EVENTS_PER_TURN);
    const res = await fork(id);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const copy = res.body.id as string;
    expect(res.body.forkedFrom).to.deep.equal({ sessionId: id, sequence: last });
    expect(await redis.xlen(keys.sessionLog(copy))).to.equal(10_000);
    for (const after of [0, 4_995, 9_990]) {
      const [was, now] = await Promise.all([id, copy].map(async (s) => (await api.get(`/v1/sessions/${s}/events?after=${after}&limit=10`)).body.data));
      expectCopy(was, now, copy);
      const use = now.find((e: any) => e.type === "agent.tool_use");
      expect(now.find((e: any) => e.type === "agent.tool_result").payload.tool_use_id).to.equal(use.id);
    }
    expect((await api.get(`/v1/sessions/${copy}/events?after=9999`)).body.data.map((e: any) => e.sequence)).to.deep.equal([10_000]);
  });
});
