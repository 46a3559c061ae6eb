import { expect } from "chai";
import { startProcess, type ServiceProcess } from "./support/processes.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { createSession, history, sendText, settle, until } from "./support/sessions.js";

const FAST_RECOVERY = { LOCK_TTL_MS: "1000", CLAIM_IDLE_MS: "1500", SWEEP_INTERVAL_MS: "200" };

describe("review: a worker stopped while a tool runs", function () {
  this.timeout(60_000);
  let server: TestServer;
  let api: Client;
  const workers: ServiceProcess[] = [];

  before(async () => {
    server = await startServer({ ROLE: "api" });
    api = client(server.url, await server.newKey());
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop("SIGKILL")));
  });
  after(async () => server.close());

  it("a SIGTERM'd worker leaves the running tool to the next worker instead of recording it as failed", async () => {
    const env = { ...FAST_RECOVERY, WORKSPACE_ROOT: `/tmp/agent-sessions-review-ws-${process.pid}` };
    workers.push(await startProcess("worker", env));
    const { sessionId } = await createSession(api, {
      agent: { tools: [{ type: "agent_toolset", defaultConfig: { enabled: true, permissionPolicy: { type: "always_allow" } }, configs: [] }] },
    });
    await sendText(api, sessionId, `/tool terminal ${JSON.stringify({ command: "sleep 2; echo finished" })}`);
    await until(
      () => history(api, sessionId),
      (h) => h.some((e) => e.type === "agent.tool_use"),
      10_000,
      "the tool to start",
    );
    expect(await workers[0]!.stop("SIGTERM")).to.equal(0);
    workers.push(await startProcess("worker", env));
    const events = await settle(api, sessionId, 1, 30_000);
    const results = events.filter((e) => e.type === "agent.tool_result");
    expect(results, JSON.stringify(results)).to.have.length(1);
    expect(results[0].payload.status).to.equal("completed");
    expect(results[0].payload.content[0].text).to.include("finished");
  });
});
