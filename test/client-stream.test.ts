import { createAgentSessionsClient, type AgentSessionsClient, type ReconnectInfo } from "@agent-sessions/client";
import { expect } from "chai";
import { read, type Reading } from "./support/client-streams.js";
import { freePort } from "./support/ports.js";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";

/** Short waits between reconnects, so the tests do not sit out the defaults. */
const QUICK = { initialDelayMs: 50, maxDelayMs: 500 };

/** The reading delivered the session's whole history, each durable event once, in order. */
async function expectWholeHistory(api: Client, sessionId: string, reading: Reading): Promise<void> {
  const all = await history(api, sessionId);
  const seen = await until(
    async () => reading.durable(),
    (d) => d.length >= all.length,
    15_000,
    "every durable event",
  );
  expect(seen.map((e) => e.sequence)).to.deep.equal(all.map((_, i) => i + 1));
  expect(seen.map((e) => e.id)).to.deep.equal(all.map((e) => e.id));
}

/** The client's event stream across a service process killed and started again, and a server that goes silent. */
describe("the TypeScript client's event stream, across process deaths", function () {
  this.timeout(90_000);
  let server: TestServer;
  let api: Client;
  let key: string;
  let port: number;
  let streams: AgentSessionsClient;
  const processes: ServiceProcess[] = [];
  const requests: { url: string; lastEventId: string | null }[] = [];
  const stopping = new AbortController();

  before(async () => {
    // Turns run here; the stream is read from API processes of its own, which the tests kill.
    server = await startServer();
    key = await server.newKey();
    api = client(server.url, key);
    port = await freePort();
    // Every request the streams make is recorded: the key never in a URL, the cursor on each reconnect.
    const recording = (request: Request) => {
      requests.push({ url: request.url, lastEventId: request.headers.get("last-event-id") });
      return fetch(request);
    };
    streams = createAgentSessionsClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: key, fetch: recording });
  });
  afterEach(async () => {
    for (const p of processes.splice(0)) {
      p.child.kill("SIGCONT");
      await p.stop("SIGKILL");
    }
  });
  after(async () => {
    stopping.abort();
    await server.close();
  });

  const apiProcess = async (env: Record<string, string> = {}) => {
    const p = await startProcess("api", env, port);
    processes.push(p);
    return p;
  };

  it("delivers every durable event once, in order, when the process serving it is SIGKILLed mid-turn and started again on its port", async () => {
    const first = await apiProcess();
    const { sessionId } = await createSession(api, { session: { title: "kept" } });
    const reconnects: ReconnectInfo[] = [];
    const reading = read(
      streams.events(sessionId, { reconnect: QUICK, signal: stopping.signal, onState: (s) => s.state === "reconnecting" && reconnects.push(s) }),
    );

    await sendText(api, sessionId, "/slow 3000 across a crash");
    await until(
      async () => reading.events.map((e) => e.type),
      (types) => types.includes("session.status_running"),
      15_000,
      "the turn to start",
    );
    await first.stop("SIGKILL");
    expect((await api.get(`/v1/sessions/${sessionId}`)).body.status, "killed mid-turn").to.equal("running");
    // While nothing serves the stream, the turn ends and another runs.
    await settle(api, sessionId, 1);
    await sendText(api, sessionId, "while nobody listened");
    await settle(api, sessionId, 2);

    await apiProcess();
    await expectWholeHistory(api, sessionId, reading);
    await sendText(api, sessionId, "after the restart");
    await settle(api, sessionId, 3);
    await expectWholeHistory(api, sessionId, reading);
    expect(reconnects.length).to.be.greaterThan(0);
    expect(reading.events.filter((e) => e.type === "agent.message" && e.sequence === null).length, "live deltas").to.be.greaterThan(0);
    const ours = requests.filter((r) => r.url.includes(sessionId));
    expect(ours[0]!.lastEventId, "the first request").to.equal(null);
    expect(
      ours.slice(1).every((r) => r.lastEventId !== null),
      "every reconnect carries the last frame's id",
    ).to.equal(true);
    expect(requests.every((r) => !r.url.includes(key))).to.equal(true);
  });

  it("delivers every durable event once, in order, across graceful stops (SIGTERM) and starts mid-turn, again and again", async () => {
    await apiProcess();
    const { sessionId } = await createSession(api, { session: { title: "kept" } });
    const reading = read(streams.events(sessionId, { reconnect: QUICK, signal: stopping.signal }));
    for (let turn = 1; turn <= 3; turn++) {
      await sendText(api, sessionId, `/slow 500 turn ${turn}`);
      await until(
        async () => reading.events.filter((e) => e.type === "session.status_running").length,
        (n) => n >= turn,
        15_000,
        "the turn to start",
      );
      await processes.pop()!.stop("SIGTERM");
      await apiProcess();
      await settle(api, sessionId, turn);
    }
    await expectWholeHistory(api, sessionId, reading);
  });

  it("drops a connection that stays silent past idleTimeoutMs and resumes on a new one", async () => {
    // Keep-alives every 100 ms: only a stopped server is silent for a second.
    const serving = await apiProcess({ SSE_KEEPALIVE_MS: "100" });
    const { sessionId } = await createSession(api, { session: { title: "kept" } });
    const reconnects: ReconnectInfo[] = [];
    const reading = read(
      streams.events(sessionId, {
        reconnect: QUICK,
        idleTimeoutMs: 1000,
        signal: stopping.signal,
        onState: (s) => s.state === "reconnecting" && reconnects.push(s),
      }),
    );
    await sendText(api, sessionId, "before the silence");
    await settle(api, sessionId, 1);
    await expectWholeHistory(api, sessionId, reading);

    serving.child.kill("SIGSTOP");
    await until(
      async () => reconnects.length,
      (n) => n >= 2,
      15_000,
      "the silent connection, and then the unanswered one, to be dropped",
    );
    await sendText(api, sessionId, "during the silence");
    await settle(api, sessionId, 2);
    serving.child.kill("SIGCONT");
    await expectWholeHistory(api, sessionId, reading);
    expect(String((reconnects[0]!.cause as Error).message ?? reconnects[0]!.cause)).to.match(/silent/);
  });
});
