/**
 * The operator command line's sessions: `agent-sessions ops sessions tail | inspect`, run as a child process
 * with the run's REDIS_URL, REDIS_KEY_PREFIX and MONGO_URL (no API key), on sessions driven through the
 * API with the mock model.
 */
import { expect } from "chai";
import { shownUrl } from "../src/cli/backends.js";
import { cli, cliRunning } from "./support/cli.js";
import { env } from "./support/hooks.js";
import { testKeys } from "./support/redis.js";
import { client, otherDeployment, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";
import { allow, lookup, sessionSteps } from "./tools-cases.js";

/** The columns of a tail line: sequence, time, type, status (the summary follows). */
const columns = (line: string) => line.split(/\s+/).slice(0, 4);

describe("ops CLI: sessions", () => {
  let server: TestServer;
  let api: Client;

  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
  });
  after(async () => server.close());

  it("tail prints the session's events from its stream as the API lists them, from --from on, and follows new ones", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "first words\nsecond line");
    const events = await settle(api, sessionId, 1);

    const all = await cli(["ops", "sessions", "tail", sessionId, "--no-follow"]);
    expect(all.code, all.stderr).to.equal(0);
    const lines = all.stdout.trimEnd().split("\n");
    expect(lines.map(columns)).to.deep.equal(events.map((e) => [`#${e.sequence}`, e.createdAt, e.type, e.status ?? "-"]));
    expect(lines.find((l) => l.includes("user.message"))).to.match(/ "first words second line"$/);
    expect(lines.find((l) => l.includes("agent.message"))).to.match(/ "echo: first words second line"$/);
    expect(lines.find((l) => l.includes("session.status_idle"))).to.match(/ stop: end_turn \(\d+ tokens, 1 model call\(s\)\)$/);

    const json = await cli(["ops", "sessions", "tail", sessionId, "--no-follow", "--json"]);
    const envelopes = json.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const pick = (e: Record<string, unknown>) => [e.id, e.sequence, e.type, e.turnId, e.status];
    expect(envelopes.map(pick)).to.deep.equal(events.map(pick));

    const last = events.at(-1)!.sequence as number;
    for (const from of [String(last), `${last}-0`]) {
      const tail = await cli(["ops", "sessions", "tail", sessionId, "--no-follow", "--from", from]);
      expect(tail.stdout.trimEnd().split("\n").map(columns), from).to.deep.equal([[`#${last}`, events.at(-1)!.createdAt, events.at(-1)!.type, "complete"]]);
    }

    const following = cliRunning(["ops", "sessions", "tail", sessionId, "--from", String(last + 1)]);
    try {
      await sendText(api, sessionId, "more words");
      const printed = await following.printed((out) => out.includes('"echo: more words"') && out.includes("session.status_idle"), "the second turn's events");
      const seen = printed
        .trimEnd()
        .split("\n")
        .map((l) => columns(l)[0]);
      const second = (await settle(api, sessionId, 2)).filter((e) => e.sequence > last);
      expect(seen).to.deep.equal(second.slice(0, seen.length).map((e) => `#${e.sequence}`));
      expect(printed).to.not.include("first words");
    } finally {
      await following.stop();
    }
  });

  it("inspect shows the record, the runtime state, the turn lock's holder and the wake-up the worker holds while a turn runs", async () => {
    const { sessionId } = await createSession(api);
    await sendText(api, sessionId, "/slow 600000 in a while");
    // The worker writes session.status_running holding the lock, and holds it through the model call.
    const running = (
      await until(
        () => history(api, sessionId),
        (es) => es.some((e) => e.type === "session.status_running"),
        15_000,
        "the turn to run",
      )
    ).find((e) => e.type === "session.status_running");
    const json = await cli(["ops", "sessions", "inspect", sessionId, "--json"]);
    expect(json.code, json.stderr).to.equal(0);
    const seen = JSON.parse(json.stdout);
    expect(seen.record).to.include({ _id: sessionId, agentVersion: 1 });
    expect(seen.record.organization).to.match(/^org-/);
    expect(seen.runtime.state.status).to.equal("running");
    expect(seen.runtime.state.turn.id).to.equal(running.turnId);
    expect(seen.runtime.identity).to.deep.equal({ orgId: seen.record.orgId, agentId: seen.record.agentId, subjectId: seen.record.subjectId });
    expect(seen.runtime.lastSequence).to.be.at.least(running.sequence);
    expect(seen.turnLock.token).to.match(/^[0-9a-f]+$/);
    expect(seen.turnLock.ttlMs).to.be.greaterThan(0);
    expect(seen.pending.wakeupsComplete).to.equal(true);
    const delivered = seen.pending.wakeups.filter((w: { consumer: string | null }) => w.consumer !== null);
    expect(delivered).to.have.length(1);
    expect(delivered[0].consumer).to.match(/-wrk_/);
    expect(delivered[0].deliveries).to.equal(1);

    const text = await cli(["ops", "sessions", "inspect", sessionId]);
    expect(text.code).to.equal(0);
    expect(text.stdout).to.include(`session ${sessionId}\n`);
    expect(text.stdout).to.match(/\n {2}status +running\n/);
    expect(text.stdout).to.include(`  turn           ${running.turnId}, started `);
    expect(text.stdout).to.include(`turn lock (Redis ${testKeys().sessionLock(sessionId)})\n  holder         token ${seen.turnLock.token}, `);
    expect(text.stdout).to.include(`: delivered to ${delivered[0].consumer}, idle `);

    await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.interrupt" }] });
    await settle(api, sessionId, 1);
    // The worker lets go of the lock and acknowledges the wake-up after the turn's end is committed.
    const inspected = async () => JSON.parse((await cli(["ops", "sessions", "inspect", sessionId, "--json"])).stdout);
    const after = await until(inspected, (i) => i.turnLock === null && i.pending.wakeups.length === 0, 15_000, "the lock and the wake-up to be let go");
    expect(after.runtime.state).to.include({ status: "idle", turn: null });
    expect((await cli(["ops", "sessions", "inspect", sessionId])).stdout).to.include("  holder         free\n");
  });

  it("inspect shows a custom tool call's kickoff while it waits, and none once the call is answered", async () => {
    const { post, paused } = sessionSteps(() => api);
    const { sessionId } = await createSession(api, { agent: { tools: [lookup({ permissionPolicy: allow })] } });
    await sendText(api, sessionId, "/tool lookup {}");
    const use = (await paused(sessionId)).events.find((e) => e.type === "agent.custom_tool_use");
    const inspected = async () => JSON.parse((await cli(["ops", "sessions", "inspect", sessionId, "--json"])).stdout);
    const waiting = (await inspected()).pending.kickoffs;
    expect(waiting.map((k: { callId: string }) => k.callId)).to.deep.equal([use.id]);
    expect((await cli(["ops", "sessions", "inspect", sessionId])).stdout).to.include(`  kickoffs       ${use.id} due by ${waiting[0].deadline}\n`);

    await post(sessionId, { type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "found" }] });
    await settle(api, sessionId, 2);
    expect((await inspected()).pending.kickoffs).to.deep.equal([]);
    expect((await cli(["ops", "sessions", "inspect", sessionId])).stdout).to.include("  kickoffs       -\n");
  });

  it("inspect shows the pending mark and a wake-up no worker has read, on a deployment without workers", async () => {
    const prefix = otherDeployment("ops-cli");
    const apiOnly = await startServer({ ROLE: "api", REDIS_KEY_PREFIX: prefix });
    try {
      const other = client(apiOnly.url, await apiOnly.newKey());
      const { sessionId } = await createSession(other);
      await sendText(other, sessionId, "nobody reads this yet");
      const run = await cli(["ops", "sessions", "inspect", sessionId, "--json"], { REDIS_KEY_PREFIX: prefix });
      expect(run.code, run.stderr).to.equal(0);
      const seen = JSON.parse(run.stdout);
      expect(Date.parse(seen.pending.markedSince)).to.be.a("number").and.not.NaN;
      expect(seen.pending.wakeups).to.have.length(1);
      expect(seen.pending.wakeups[0]).to.include({ consumer: null, deliveries: 0 });
      expect(seen.turnLock).to.equal(null);
      const text = await cli(["ops", "sessions", "inspect", sessionId], { REDIS_KEY_PREFIX: prefix });
      expect(text.stdout).to.include(`  worker mark    since ${seen.pending.markedSince} (${testKeys(prefix).pending(testKeys(prefix).shardOf(sessionId))})\n`);
      expect(text.stdout).to.include(`  wake-ups       ${seen.pending.wakeups[0].entryId}: not read by a worker yet\n`);
      // The suite's prefix holds nothing of it: the record alone is found, and the output says where it looked.
      const elsewhere = await cli(["ops", "sessions", "inspect", sessionId]);
      expect(elsewhere.stdout).to.include(`  none (REDIS_KEY_PREFIX=${env.redisKeyPrefix}; REDIS_URL=`);
    } finally {
      await apiOnly.close();
    }
  });

  it("an unknown session exits 1 saying where it was looked for; bad settings and usage say what is wrong", async () => {
    const tail = await cli(["ops", "sessions", "tail", "ses_unknown"]);
    expect(tail).to.include({ code: 1, stdout: "" });
    expect(tail.stderr).to.equal(
      `agent-sessions: no session ses_unknown in Redis (REDIS_KEY_PREFIX=${env.redisKeyPrefix}; REDIS_URL=${shownUrl(env.redisUrl)}); a deleted session has none\n`,
    );
    const inspect = await cli(["ops", "sessions", "inspect", "ses_unknown"]);
    expect(inspect).to.include({ code: 1, stdout: "" });
    expect(inspect.stderr).to.match(
      /^agent-sessions: no session ses_unknown: no record in MongoDB \(MONGO_URL=mongodb:\/\/.+\) and no state in Redis \(REDIS_KEY_PREFIX=/,
    );

    const { sessionId } = await createSession(api);
    const unset = await cli(["ops", "sessions", "tail", sessionId, "--no-follow"], { REDIS_KEY_PREFIX: undefined });
    expect(unset.code).to.equal(1);
    expect(unset.stderr).to.include(`no session ${sessionId} in Redis (REDIS_KEY_PREFIX not set, so as; `);
    const unreachable = await cli(["ops", "sessions", "tail", sessionId], { REDIS_URL: "redis://127.0.0.1:1" });
    expect(unreachable).to.include({ code: 1, stdout: "" });
    expect(unreachable.stderr).to.match(/^agent-sessions: cannot reach Redis \(REDIS_URL=redis:\/\/127\.0\.0\.1:1\): /);
    const badPrefix = await cli(["ops", "sessions", "inspect", sessionId], { REDIS_KEY_PREFIX: "Not Valid" });
    expect(badPrefix).to.include({ code: 1, stderr: "agent-sessions: configuration error: REDIS_KEY_PREFIX must be 1-32 lowercase letters, digits, _ or -\n" });

    for (const args of [
      ["ops", "sessions", "tail", "ses_{x}"],
      ["ops", "sessions", "tail", sessionId, "--from", "0"],
      ["ops", "sessions", "tail", sessionId, "--from", "1-1"],
      ["ops", "sessions", "inspect"],
    ]) {
      const run = await cli(args);
      expect(run.code, args.join(" ")).to.equal(2);
      expect(run.stderr, args.join(" "))
        .to.match(/^error: /)
        .and.include("Usage: agent-sessions ops sessions");
    }
  });
});
