/**
 * The first turn of a session after a prewarm against a cold first turn, in one run, for an agent with
 * an MCP server (the suite's bearer server, each request held BENCH_MCP_DELAY_MS as a network round
 * trip would hold it) and the built-in tools (a workspace). Every sample is a new agent with a vault and
 * credential of its own, so nothing another sample made is cached (agent version, credential,
 * connection, tool list). Each turn calls the server's `echo` and writes a file; its latency is
 * POST user.message → session.status_idle:
 *   cold        create a session, open its stream, post at once (creation's own preparation runs beside
 *               the turn, as it does for any client that posts straight after creating);
 *   prewarmed   POST /v1/sandboxes/warm, wait until the server has answered the preparation's
 *               tools/list, then create the session and post as above;
 *   later turn  the prewarmed session's second turn: everything warm (the baseline).
 * Samples alternate cold and prewarmed. Options: BENCH_SAMPLES (default 40), BENCH_MCP_DELAY_MS (default 20).
 */
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { startBearerServer, type RecordingServer } from "../test/support/mcp-servers.js";
import { conditions, fixed as f, startService, summary, type Service } from "./support.js";
import { WatchedSession } from "./watched.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const MCP_DELAY_MS = Number(process.env.BENCH_MCP_DELAY_MS ?? 20);
const WARMUP = 3;
/** After the server answered the preparation's tools/list: time for the pool to keep the list. */
const KEPT_MS = 10;
const TOKEN = `bench-${randomBytes(8).toString("hex")}`;
const allow = { enabled: true, permissionPolicy: { type: "always_allow" } };

async function api(service: Service, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(service.base + path, {
    method,
    headers: { "x-api-key": service.key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A new agent using the server through a vault and credential of its own, and the built-in tools. */
async function newAgent(service: Service, mcp: RecordingServer, n: number): Promise<string> {
  const agent = await service.post("/v1/agents", {
    name: `prewarm-${n}`,
    modelName: "mock/bench",
    systemPrompt: "You answer.",
    skills: [],
    tools: [
      { type: "mcp_toolset", mcpServerName: "tools", defaultConfig: allow },
      { type: "agent_toolset", defaultConfig: allow },
    ],
    mcpServers: [{ type: "url", name: "tools", url: mcp.url }],
    rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 },
  });
  const agentId = String(agent.id);
  const vault = await service.post("/v1/vaults", { displayName: `prewarm-${n}` });
  await service.post(`/v1/vaults/${String(vault.id)}/credentials`, {
    displayName: "tools",
    auth: { type: "static_bearer", mcpServerUrl: mcp.url, token: TOKEN },
  });
  const { updatedAt } = await api(service, "GET", `/v1/agents/${agentId}/vaults`);
  await api(service, "PUT", `/v1/agents/${agentId}/vaults`, { vaultIds: [vault.id], expectedUpdatedAt: updatedAt });
  return agentId;
}

const prompt = (n: number, turn: number) =>
  `/tool mcp__tools__echo {"text":"sample ${n} turn ${turn}"}\n/tool write_file {"path":"notes.txt","content":"turn ${turn}"}`;

/** Waits until the server has answered a tools/list sent after `from` answers. */
async function listedSince(mcp: RecordingServer, from: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; !mcp.answered.slice(from).includes("tools/list"); await delay(1)) {
    if (Date.now() > deadline) throw new Error("the preparation never listed the server's tools");
  }
  await delay(KEPT_MS);
}

/** The session's tool results were all successes (a benchmark of failing turns would measure nothing). */
async function checkResults(service: Service, sessionId: string): Promise<void> {
  const { data } = (await api(service, "GET", `/v1/sessions/${sessionId}/events`)) as { data: { type: string; payload: { is_error?: boolean } }[] };
  const results = data.filter((e) => e.type === "agent.mcp_tool_result" || e.type === "agent.tool_result");
  if (results.length !== 4 || results.some((r) => r.payload.is_error)) throw new Error(`the turns' tool results: ${JSON.stringify(results)}`);
}

async function main(): Promise<void> {
  console.log(await conditions());
  const mcp = await startBearerServer({ token: TOKEN, delayMs: MCP_DELAY_MS });
  const service = await startService("bench-prewarm", { VAULT_ENCRYPTION_KEY: randomBytes(32).toString("base64"), OUTBOUND_ALLOWED_NETWORKS: "127.0.0.1/32" });
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // one listener per open stream
  const cold: number[] = [];
  const prewarmed: number[] = [];
  const later: number[] = [];
  const requests = { cold: [] as string[], prewarmed: [] as string[] };
  try {
    for (let n = 0; n < WARMUP + SAMPLES; n++) {
      const keep = n >= WARMUP;
      const coldAgent = await newAgent(service, mcp, 2 * n);
      let from = mcp.methods.length;
      const a = await WatchedSession.open(service, coldAgent, `cold-${n}`, stop.signal);
      const first = await a.turn(prompt(n, 1));
      requests.cold = mcp.methods.slice(from);
      if (keep) cold.push(first.ms);

      const warmAgent = await newAgent(service, mcp, 2 * n + 1);
      const answered = mcp.answered.length;
      await service.post("/v1/sandboxes/warm", { agentId: warmAgent, subjectId: `warm-${n}` });
      await listedSince(mcp, answered);
      from = mcp.methods.length;
      const b = await WatchedSession.open(service, warmAgent, `warm-${n}`, stop.signal);
      const warmed = await b.turn(prompt(n, 1));
      requests.prewarmed = mcp.methods.slice(from);
      const second = await b.turn(prompt(n, 2));
      if (keep) {
        prewarmed.push(warmed.ms);
        later.push(second.ms);
      }
      if (n === WARMUP + SAMPLES - 1) await Promise.all([a.turn(prompt(n, 2)).then(() => checkResults(service, a.id)), checkResults(service, b.id)]);
    }
  } finally {
    stop.abort();
    await service.close();
    await mcp.close();
  }
  const c = summary(cold);
  const w = summary(prewarmed);
  const l = summary(later);
  const row = (name: string, s: typeof c) => console.log(`    ${name.padEnd(26)} p50 ${f(s.p50)} ms   p95 ${f(s.p95)} ms   p99 ${f(s.p99)} ms`);
  console.log(
    `First turn (POST user.message → session.status_idle; one MCP call and one file write), ${SAMPLES} samples each, MCP server ${MCP_DELAY_MS} ms a request`,
  );
  row("cold (new session)", c);
  row("after a prewarm", w);
  row("later turn (baseline)", l);
  console.log(`    cold / prewarmed          p50 ${f(c.p50 / w.p50, 8, 2)}x  p95 ${f(c.p95 / w.p95, 8, 2)}x  p99 ${f(c.p99 / w.p99, 8, 2)}x`);
  console.log(`    prewarmed / later turn    p50 ${f(w.p50 / l.p50, 8, 2)}x  p95 ${f(w.p95 / l.p95, 8, 2)}x  p99 ${f(w.p99 / l.p99, 8, 2)}x`);
  console.log(`    MCP requests from session creation to idle, last sample: cold [${requests.cold.join(", ")}]; prewarmed [${requests.prewarmed.join(", ")}]`);
}

await main();
