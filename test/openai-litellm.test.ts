/**
 * A session through a real third-party OpenAI-compatible server: LiteLLM's proxy (PyPI, pinned; started by
 * scripts/litellm.sh) as a named endpoint. Its `mock_response` streams text with usage, with no upstream;
 * its mock mode streams no tool calls, so the tool loop goes through LiteLLM as the gateway it usually is,
 * in front of the fake OpenAI-compatible server: what reaches the service is LiteLLM's own re-streamed
 * chunks. Skipped, saying why, only where python3 cannot make a virtual environment.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { FakeOpenAi } from "./support/fake-openai.js";
import { freePort } from "./support/ports.js";
import { secret } from "./support/secrets.js";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { openSse } from "./support/sse.js";
import { agentTexts, createSession, history, sendText, settle, until } from "./support/sessions.js";

const MOCK_TEXT = "Hello from LiteLLM's own mock, streamed in pieces.";

function venvMissing(): string | undefined {
  const probe = spawnSync("python3", ["-c", "import venv, ensurepip"], { encoding: "utf8" });
  if (probe.error) return "python3 is not installed";
  return probe.status === 0 ? undefined : "python3 has no venv/ensurepip module";
}

describe("sessions through LiteLLM's proxy, a real OpenAI-compatible server", function () {
  let upstream: FakeOpenAi;
  let proxy: ChildProcess | undefined;
  let proxyLog = "";
  let server: TestServer;
  let api: Client;
  let key: string;

  before(async function () {
    const missing = venvMissing();
    if (missing) {
      console.log(`skipped: ${missing}, so LiteLLM's proxy cannot be installed`);
      return this.skip();
    }
    this.timeout(900_000); // the first install of the pinned proxy; CI installs it in a step of its own
    const installed = spawnSync("bash", ["scripts/litellm.sh", "install"], { encoding: "utf8" });
    if (installed.status !== 0) throw new Error(`scripts/litellm.sh install failed: ${installed.stderr}`);

    const upstreamKey = secret();
    const proxyKey = secret();
    upstream = await FakeOpenAi.start({ apiKey: upstreamKey, models: ["upstream-model"] });
    const dir = mkdtempSync(join(tmpdir(), "litellm-"));
    const config = join(dir, "config.yaml");
    writeFileSync(
      config,
      [
        "model_list:",
        "  - model_name: mock-text",
        "    litellm_params:",
        "      model: openai/mock-text",
        `      mock_response: ${JSON.stringify(MOCK_TEXT)}`,
        "  - model_name: gateway",
        "    litellm_params:",
        "      model: openai/upstream-model",
        `      api_base: ${upstream.url}`,
        `      api_key: ${upstreamKey}`,
        "general_settings:",
        `  master_key: ${proxyKey}`,
        "",
      ].join("\n"),
    );
    const port = await freePort();
    proxy = spawn("bash", ["scripts/litellm.sh", "serve", config, String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    proxy.stdout!.on("data", (d: Buffer) => (proxyLog += d.toString()));
    proxy.stderr!.on("data", (d: Buffer) => (proxyLog += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    try {
      await until(
        () =>
          fetch(`${base}/health/liveliness`).then(
            (r) => r.ok,
            () => false,
          ),
        (ok) => ok,
        120_000,
        "LiteLLM's proxy to answer",
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}; its output ends with: ${proxyLog.slice(-2000)}`, { cause: err });
    }
    server = await startServer({
      MODEL_ENDPOINTS: JSON.stringify({ litellm: { baseUrl: `${base}/v1`, apiKeyEnv: "TEST_LITELLM_KEY" } }),
      TEST_LITELLM_KEY: proxyKey,
      OPENAI_RETRY_BASE_MS: "1",
    });
    key = await server.newKey();
    api = client(server.url, key);
  });

  after(async () => {
    await server?.close();
    if (proxy && proxy.exitCode === null) {
      const exited = new Promise((resolve) => proxy!.once("exit", resolve));
      proxy.kill("SIGTERM");
      await exited;
    }
    await upstream?.close();
  });

  it("streams LiteLLM's mock response as agent.message deltas, with its usage", async () => {
    const { sessionId } = await createSession(api, { agent: { modelName: "litellm/mock-text", systemPrompt: "Be kind." } });
    const sse = await openSse(`${server.url}/v1/sessions/${sessionId}/events/stream`, key);
    await sendText(api, sessionId, "hi");
    await sse.waitFor((f) => f.some((x) => x.event === "session.status_idle"));
    sse.close();
    const deltas = sse.frames.filter((f) => f.event === "agent.message" && f.data.payload.delta === true);
    expect(deltas.length).to.be.greaterThan(2);
    expect(deltas.map((d) => d.data.payload.content[0].text).join("")).to.equal(MOCK_TEXT);
    const events = await settle(api, sessionId, 1);
    expect(agentTexts(events)).to.deep.equal([MOCK_TEXT]);
    const usage = events.find((e) => e.type === "session.status_idle").usage;
    expect(usage).to.include({ model: "litellm/mock-text", calls: 1, cost_status: "unknown" });
    expect(usage.input).to.be.greaterThan(0);
    expect(usage.output).to.be.greaterThan(0);
  });

  it("a tool call streamed through LiteLLM in fragments, its result sent back through it, then the answer", async () => {
    upstream.push(
      { text: "Looking.", toolCalls: [{ id: "call_up1", name: "lookup", input: { order: "A-1", note: "fragmented arguments" } }], chunkSize: 4 },
      { text: "It shipped on Monday.", usage: { prompt_tokens: 90, completion_tokens: 7 } },
    );
    const tool = {
      type: "custom_tool",
      name: "lookup",
      description: "Order lookup",
      input_schema: { type: "object", properties: { order: { type: "string" } } },
    };
    const { sessionId } = await createSession(api, { agent: { modelName: "litellm/gateway", systemPrompt: "Be kind.", tools: [tool] } });
    await sendText(api, sessionId, "where is my order?");
    const asked = await until(
      () => history(api, sessionId),
      (h) => h.some((e) => e.type === "agent.approval_request"),
    );
    const approval = asked.find((e) => e.type === "agent.approval_request");
    expect(approval.payload).to.deep.include({ tool: "lookup", input: { order: "A-1", note: "fragmented arguments" } });
    await api.post(`/v1/sessions/${sessionId}/events`, { events: [{ type: "user.approval_response", approval_id: approval.id, result: "allow" }] });
    const used = await until(
      () => history(api, sessionId),
      (h) => h.some((e) => e.type === "agent.custom_tool_use"),
    );
    const use = used.find((e) => e.type === "agent.custom_tool_use");
    await until(
      () => api.get(`/v1/sessions/${sessionId}`),
      (r) => r.body.status === "waiting_on_human",
    );
    await api.post(`/v1/sessions/${sessionId}/events`, {
      events: [{ type: "user.custom_tool_result", tool_use_id: use.id, content: [{ type: "text", text: "shipped on Monday" }] }],
    });
    const events = await settle(api, sessionId, 3);
    expect(agentTexts(events)).to.deep.equal(["Looking.", "It shipped on Monday."]);
    // What LiteLLM passed on to its upstream: the call and its result, paired by id.
    const second = upstream.requests.at(-1)!.body.messages;
    const call = second.find((m: any) => m.role === "assistant" && m.tool_calls).tool_calls[0];
    expect(call.function).to.deep.include({ name: "lookup" });
    expect(JSON.parse(call.function.arguments)).to.deep.equal({ order: "A-1", note: "fragmented arguments" });
    expect(second.find((m: any) => m.role === "tool")).to.deep.include({ tool_call_id: call.id });
    const idle = events.filter((e) => e.type === "session.status_idle").at(-1);
    expect(idle.usage.calls).to.equal(2);
    expect(idle.usage.input + idle.usage.cache_read).to.be.at.least(90);
  });
});
