/**
 * The client's resource methods and turn helpers against the real service: typed calls per resource,
 * auto-pagination, `sendAndWait` with its stop reason, usage and text, `on("text")`, a turn followed
 * through a dropped connection (a TCP proxy cut mid-turn), and a refused connection becoming
 * `APIConnectionError` after the retries.
 */
import {
  APIConnectionError,
  createAgentSessionsClient,
  createDeploymentsClient,
  NotFoundError,
  PermissionDeniedError,
  type AgentSessionsClient,
  type Event,
  type RetryInfo,
  type StreamState,
} from "@agent-sessions/client";
import { expect } from "chai";
import { newSubject } from "./support/api.js";
import { deploymentsClient } from "./support/deployments.js";
import { startServer, type TestServer } from "./support/server.js";
import { until } from "./support/sessions.js";
import { startTcpCut, type TcpCut } from "./support/tcp-cut.js";

const QUICK = { initialDelayMs: 20, maxDelayMs: 100 };

describe("the TypeScript client's resources and turns", function () {
  this.timeout(30_000);
  let server: TestServer;
  let key: string;
  let c: AgentSessionsClient;
  let proxy: TcpCut;
  before(async () => {
    server = await startServer();
    key = await server.newKey();
    c = createAgentSessionsClient({ baseUrl: server.url, apiKey: key });
    proxy = await startTcpCut({ host: "127.0.0.1", port: Number(new URL(server.url).port) });
  });
  after(async () => {
    await proxy.close();
    await server.close();
  });

  const newAgent = (name = "Resourceful") => c.agents.create({ name, modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [] });

  it("agents: create, get, update (a new version), versions, list page by page, archive; a missing one is NotFoundError", async () => {
    const agent = await newAgent();
    expect((await c.agents.get(agent.id)).name).to.equal("Resourceful");
    const updated = await c.agents.update(agent.id, { systemPrompt: "You help more.", expectedVersion: 1 });
    expect(updated.version.version).to.equal(2);
    expect((await c.agents.versions.list(agent.id)).data.map((v) => v.version)).to.have.members([1, 2]);
    expect((await c.agents.versions.get(agent.id, 1)).version).to.equal(1);
    await newAgent("Second");
    const first = await c.agents.list({ limit: 1 });
    expect(first.data).to.have.length(1);
    expect(first.pagination.hasMore).to.equal(true);
    const every: string[] = [];
    for await (const a of c.agents.list({ limit: 1 })) every.push(a.id);
    expect(every).to.include(agent.id).and.have.length.of.at.least(2);
    expect(new Set(every).size).to.equal(every.length);
    expect((await c.agents.archive(agent.id)).status).to.equal("archived");
    expect(await c.agents.get("agt_missing").catch((e: unknown) => e)).to.be.instanceOf(NotFoundError);
  });

  it("sessions, vaults and credentials, automations: each through its resource", async () => {
    const agent = await newAgent();
    const subjectId = newSubject();
    const session = await c.sessions.create({ agentId: agent.id, subjectId, title: "resources" });
    expect((await c.sessions.update(session.id, { title: "renamed" })).title).to.equal("renamed");
    expect((await c.sessions.list({ subjectId })).data.map((s) => s.id)).to.deep.equal([session.id]);
    expect((await c.sessions.archive(session.id)).status).to.equal("archived");

    const vault = await c.vaults.create({ displayName: "Keys" });
    const auth = { type: "static_bearer" as const, mcpServerUrl: "https://search.example.com/mcp", token: "secret-token-1" };
    const credential = await c.vaults.credentials.create(vault.id, { displayName: "Search", auth });
    expect((await c.vaults.credentials.list(vault.id)).data.map((x) => x.id)).to.deep.equal([credential.id]);
    expect(JSON.stringify(await c.vaults.credentials.get(vault.id, credential.id))).to.not.include("secret-token-1");
    expect((await c.vaults.credentials.archive(vault.id, credential.id)).archivedAt).to.be.a("string");
    expect((await c.vaults.list()).data.map((v) => v.id)).to.include(vault.id);

    const automation = await c.automations.create(agent.id, subjectId, { prompt: "Daily digest", schedule: "1d" });
    const ref = { agentId: agent.id, subjectId, automationId: automation.id };
    expect((await c.automations.get(ref)).prompt).to.equal("Daily digest");
    expect((await c.automations.pause(ref)).state).to.equal("paused");
    expect((await c.automations.resume(ref)).state).to.equal("active");
    expect((await c.automations.list(agent.id)).data.map((a) => a.id)).to.deep.equal([automation.id]);
    expect((await c.automations.list(agent.id, { subjectId })).data.map((a) => a.id)).to.deep.equal([automation.id]);
    await c.automations.delete(ref);
    expect(await c.automations.get(ref).catch((e: unknown) => e)).to.be.instanceOf(NotFoundError);
  });

  it("the deployments client: deployments, threads, secrets and credits; a key without the scope is PermissionDeniedError", async () => {
    const { key: depKey } = await deploymentsClient(server);
    const d = createDeploymentsClient({ baseUrl: server.deploymentsUrl, apiKey: depKey });
    const created = await d.deployments.create({ customer_id: "cus_client", name: "Typed deployment", model: "mock/echo", system_prompt: "You help." });
    expect((await d.deployments.get(created.deployment_id)).name).to.equal("Typed deployment");
    expect((await d.deployments.update(created.deployment_id, { name: "Renamed" })).name).to.equal("Renamed");
    const ids: string[] = [];
    for await (const summary of d.deployments.list({ limit: 1 })) ids.push(summary.deployment_id);
    expect(ids).to.include(created.deployment_id);
    await until(
      () => d.deployments.get(created.deployment_id),
      (x) => x.status !== "provisioning",
      15_000,
      "the deployment to be ready",
    );
    const thread = await d.threads.create(created.deployment_id, { title: "typed" });
    expect((await d.threads.list(created.deployment_id)).data.map((t) => t.thread_id)).to.include(thread.thread_id);
    const secret = await d.secrets.create({ name: "TOKEN", value: "s3cret-value" });
    expect(JSON.stringify(await d.secrets.list()))
      .to.include(secret.secret_id)
      .and.not.include("s3cret-value");
    await d.secrets.delete(secret.secret_id);
    expect((await d.credits.get()).balance_usd).to.be.a("string");
    const { key: readOnly } = await deploymentsClient(server, ["deployments:read"]);
    const reader = createDeploymentsClient({ baseUrl: server.deploymentsUrl, apiKey: readOnly });
    const refused = await reader.deployments.create({ customer_id: "cus_x", name: "No", system_prompt: "x" }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(PermissionDeniedError).and.include({ status: 403, code: "forbidden" });
  });

  it("sendAndWait: resolves when the turn stops, with its stop reason, usage and final text; on('text') streams the same text", async () => {
    const agent = await newAgent();
    const session = await c.sessions.create({ agentId: agent.id, subjectId: newSubject() });
    // The first turn this client follows on a new session: its stream opens at the log's end before the send, so every piece is told as it streams.
    const requests: string[] = [];
    const watched = createAgentSessionsClient({
      baseUrl: server.url,
      apiKey: key,
      fetch: (request) => (requests.push(`${request.method} ${new URL(request.url).pathname}`), globalThis.fetch(request)),
    });
    const first = await watched.sessions.sendAndStream(session.id, "Hello there");
    const firstPieces: string[] = [];
    first.on("text", (delta) => firstPieces.push(delta));
    await first.done();
    const path = `/v1/sessions/${session.id}/events`;
    expect(requests.slice(0, 3)).to.deep.equal([`GET ${path}`, `GET ${path}/stream`, `POST ${path}`]);
    expect(firstPieces.join("")).to.equal("echo: Hello there");

    const result = await c.sessions.sendAndWait(session.id, "Hello there");
    expect(result.stopReason).to.deep.equal({ type: "end_turn" });
    expect(result.text).to.equal("echo: Hello there");
    expect(result.usage!.calls).to.equal(1);
    expect(result.events.map((e) => e.type)).to.deep.equal(["user.message", "session.status_running", "agent.message", "session.status_idle"]);

    const turn = await c.sessions.sendAndStream(session.id, "Streaming now");
    const pieces: string[] = [];
    turn.on("text", (delta) => pieces.push(delta));
    expect(await turn.finalText()).to.equal("echo: Streaming now");
    // The session's second turn through this client: its stream opened where the first left off, before the send.
    expect(pieces.join("")).to.equal("echo: Streaming now");
    expect((await turn.finalMessage())!.payload.delta).to.equal(false);

    const paused = await c.events.sendAndWait(session.id, "/error on purpose");
    expect(paused.stopReason).to.deep.equal({ type: "error", message: "on purpose" });
    // Narrowing on `type` gives each payload its own fields (compiled, not run).
    void ((e: Event) => (e.type === "agent.message" ? e.payload.delta : e.type === "session.status_idle" ? e.payload.stop_reason.type : e.payload.type));
  });

  it("sendAndWait follows a prompt queued behind a running turn to its own turn, and an approval to the end of the turn it resumes", async () => {
    const agent = await newAgent();
    const session = await c.sessions.create({ agentId: agent.id, subjectId: newSubject() });
    const first = await c.sessions.sendAndStream(session.id, "/slow 300 first");
    const queued = c.sessions.sendAndWait(session.id, {
      events: [{ type: "user.message", content: [{ type: "text", text: "second" }] }],
      delivery: "when_idle",
    });
    expect(await first.finalText()).to.equal("echo: first");
    const second = await queued;
    expect(second.text).to.equal("echo: second");
    expect(second.turnId).to.not.equal((await first.done()).turnId);

    const tools = await c.agents.create({ name: "Asks", modelName: "mock/echo", systemPrompt: "You help.", skills: [], tools: [{ type: "agent_toolset" }] });
    const asking = await c.sessions.create({ agentId: tools.id, subjectId: newSubject() });
    const paused = await c.sessions.sendAndWait(asking.id, "/tool todo {}");
    expect(paused.stopReason.type).to.equal("requires_action");
    const approvalId = paused.stopReason.type === "requires_action" ? paused.stopReason.event_ids[0]! : "";
    const resumed = await c.sessions.sendAndWait(asking.id, { type: "user.approval_response", approval_id: approvalId, result: "allow" });
    expect(resumed.stopReason).to.deep.equal({ type: "end_turn" });
    expect(resumed.text).to.equal("tool todo result: The todo list is empty.");
  });

  it("sendAndWait through a connection dropped mid-turn: reconnects, and rebuilds the text from the durable message", async () => {
    const through = createAgentSessionsClient({ baseUrl: `http://${proxy.address}`, apiKey: key, retry: { backoff: QUICK } });
    const agent = await newAgent();
    const session = await c.sessions.create({ agentId: agent.id, subjectId: newSubject() });
    const states: StreamState[] = [];
    const turn = await through.sessions.sendAndStream(session.id, "/slow 800 through a cut", { stream: { reconnect: QUICK, onState: (s) => states.push(s) } });
    const pieces: string[] = [];
    turn.on("text", (delta) => pieces.push(delta));
    let cut: Promise<void> | undefined;
    turn.on("event", (e) => {
      if (e.type === "session.status_running") cut ??= proxy.cut();
    });
    await until(
      async () => cut !== undefined,
      (started) => started,
      10_000,
      "the turn to start",
    );
    await cut;
    // The turn ends while the client is cut off: every delta of it is missed.
    await until(
      () => c.sessions.get(session.id),
      (s) => s.status === "idle",
      10_000,
      "the turn to end",
    );
    await proxy.restore();
    const result = await turn.done();
    expect(result.text).to.equal("echo: through a cut");
    expect(pieces.join("")).to.equal("echo: through a cut");
    expect(result.stopReason.type).to.equal("end_turn");
    expect(states.some((s) => s.state === "reconnecting")).to.equal(true);
  });

  it("a refused connection is retried, then thrown as APIConnectionError; the same client works once the service answers", async () => {
    const retries: RetryInfo[] = [];
    const through = createAgentSessionsClient({
      baseUrl: `http://${proxy.address}`,
      apiKey: key,
      maxRetries: 2,
      retry: { backoff: QUICK, onRetry: (r) => retries.push(r) },
    });
    await proxy.cut();
    try {
      const err = await through.agents.list().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(APIConnectionError);
      expect(retries.map((r) => [r.attempt, r.status])).to.deep.equal([
        [1, undefined],
        [2, undefined],
      ]);
      const stream = through.events.stream("ses_any", { reconnect: { ...QUICK, maxAttempts: 1 } });
      const ended = await (async () => {
        for await (const event of stream) void event;
      })().catch((e: unknown) => e);
      expect(ended).to.be.instanceOf(APIConnectionError);
    } finally {
      await proxy.restore();
    }
    expect((await through.agents.list()).object).to.equal("list");
  });
});
