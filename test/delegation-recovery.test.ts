/**
 * Delegation survives its workers: a worker killed while a parent waits on a running child thread, or
 * while both wait for the human, is replaced, and the next worker resumes both from the logs.
 */
import { expect } from "chai";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { agentBody, client, startServer, type Client, type TestServer } from "./support/server.js";
import { agentTexts, history, sendText, settle, until } from "./support/sessions.js";
import { allow, ask, sessionSteps, toolset } from "./tools-cases.js";

const FAST_RECOVERY = { LOCK_TTL_MS: "1000", CLAIM_IDLE_MS: "1500", SWEEP_INTERVAL_MS: "200" };

describe("delegation: a worker killed mid-delegation", function () {
  this.timeout(60_000);
  let server: TestServer;
  let api: Client;
  const workers: ServiceProcess[] = [];
  const env = { ...FAST_RECOVERY, WORKSPACE_ROOT: `/tmp/agent-sessions-delegation-ws-${process.pid}` };

  before(async () => {
    server = await startServer({ ROLE: "api" });
    api = client(server.url, await server.newKey());
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop("SIGKILL")));
  });
  after(async () => server.close());

  const { paused, approve } = sessionSteps(() => api);

  async function delegating(calleeTools: unknown[] = []) {
    const callee = (await api.post("/v1/agents", agentBody({ tools: calleeTools }))).body.id as string;
    const parent = await api.post(
      "/v1/agents",
      agentBody({ callableAgents: [{ agentId: callee, description: "helper" }], tools: [toolset(ask, [{ name: "delegation", permissionPolicy: allow }])] }),
    );
    const session = await api.post("/v1/sessions", { agentId: parent.body.id, subjectId: `subject-${Date.now()}` });
    return { callee, sessionId: session.body.id as string };
  }

  const threadOf = async (sessionId: string) => {
    const events = await until(
      () => history(api, sessionId),
      (h) => h.some((e) => e.type === "agent.thread_message_sent"),
      15_000,
      "the delegation",
    );
    return events.find((e) => e.type === "agent.thread_message_sent").payload.thread_id as string;
  };

  it("killed while the child runs: the next worker runs the child's turn again, and the parent gets its answer", async () => {
    workers.push(await startProcess("worker", env));
    const { callee, sessionId } = await delegating();
    await sendText(api, sessionId, `/tool delegate__${callee} ${JSON.stringify({ message: "/slow 1500 the answer" })}`);
    const threadId = await threadOf(sessionId);
    await until(
      () => api.get(`/v1/sessions/${threadId}`),
      (r) => r.body.status === "running",
      15_000,
      "the thread to run",
    );
    await workers[0]!.stop("SIGKILL");
    workers.push(await startProcess("worker", env));
    const events = await settle(api, sessionId, 1, 30_000);
    expect(agentTexts(events)).to.deep.equal([`tool delegate__${callee} result: echo: the answer`]);
    expect(events.filter((e) => e.type === "agent.thread_message_received")).to.have.length(1);
    expect(events.filter((e) => e.type === "agent.thread_message_sent")).to.have.length(1);
  });

  it("killed while both wait for the human: the answer given with no worker running resumes both once one starts", async () => {
    workers.push(await startProcess("worker", env));
    const { callee, sessionId } = await delegating([toolset(ask)]);
    await sendText(api, sessionId, `/tool delegate__${callee} ${JSON.stringify({ message: "/tool todo {}" })}`);
    const { blocking } = await paused(sessionId);
    const threadId = await threadOf(sessionId);
    await workers[0]!.stop("SIGKILL");
    expect((await approve(threadId, blocking[0]!)).status).to.equal(202);
    workers.push(await startProcess("worker", env));
    const events = await settle(api, sessionId, 2, 30_000);
    expect(events.find((e) => e.type === "agent.thread_message_received").payload.content[0].text).to.match(/^tool todo result: /);
    expect(events.findLast((e) => e.type === "session.status_idle").payload.stop_reason).to.deep.equal({ type: "end_turn" });
  });
});
