/**
 * An MCP tool call through a session against the same call made directly with the SDK client, in one
 * run, on one loopback MCP server behind a bearer token (the suite's SDK-built server):
 *   direct        Client.callTool("echo") over Streamable HTTP, one after another;
 *   via session   the turn's `agent.mcp_tool_use` frame → its `agent.mcp_tool_result` frame over SSE:
 *                 the credential resolved from the vault, the call through the worker's pool, the result
 *                 committed to the log and delivered;
 *   turn          POST user.message → session.status_idle for a turn making that one call.
 * The service's overhead is "via session" minus "direct" (target: under 5 ms at p50).
 * Options: BENCH_SAMPLES (default 200).
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startBearerServer } from "../test/support/mcp-servers.js";
import { conditions, fixed as f, sse, startService, summary } from "./support.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 10;
const TOKEN = `bench-${Date.now().toString(36)}`;

async function direct(url: string): Promise<number[]> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  const out: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const t0 = performance.now();
    await client.callTool({ name: "echo", arguments: { text: `call ${i}` } });
    if (i >= WARMUP) out.push(performance.now() - t0);
  }
  await client.close();
  return out;
}

async function main(): Promise<void> {
  console.log(await conditions());
  const mcp = await startBearerServer({ token: TOKEN });
  // A key of this run only: the bench stores one credential and drops its database at the end.
  const service = await startService("bench-mcp", { VAULT_ENCRYPTION_KEY: randomBytes(32).toString("base64"), OUTBOUND_ALLOWED_NETWORKS: "127.0.0.1/32" });
  const stop = new AbortController();
  try {
    const agent = await service.post("/v1/agents", {
      name: "bench",
      modelName: "mock/bench",
      systemPrompt: "You answer.",
      skills: [],
      tools: [{ type: "mcp_toolset", mcpServerName: "tools", defaultConfig: { enabled: true, permissionPolicy: { type: "always_allow" } } }],
      mcpServers: [{ type: "url", name: "tools", url: mcp.url }],
      rateLimits: { conversationsPerMinute: 300, messagesPerMinute: 1000 },
    });
    const vault = await service.post("/v1/vaults", { displayName: "bench" });
    await service.post(`/v1/vaults/${String(vault.id)}/credentials`, {
      displayName: "tools",
      auth: { type: "static_bearer", mcpServerUrl: mcp.url, token: TOKEN },
    });
    const vaults = (await (await fetch(`${service.base}/v1/agents/${String(agent.id)}/vaults`, { headers: { "x-api-key": service.key } })).json()) as {
      updatedAt: string;
    };
    const put = await fetch(`${service.base}/v1/agents/${String(agent.id)}/vaults`, {
      method: "PUT",
      headers: { "x-api-key": service.key, "content-type": "application/json" },
      body: JSON.stringify({ vaultIds: [vault.id], expectedUpdatedAt: vaults.updatedAt }),
    });
    if (put.status !== 200) throw new Error(`attaching the vault → ${put.status}`);
    const session = await service.post("/v1/sessions", { agentId: agent.id, subjectId: "bench-mcp" });

    let used = 0;
    let onResult: (() => void) | null = null;
    let onIdle: (() => void) | null = null;
    await sse(
      `${service.base}/v1/sessions/${String(session.id)}/events/stream?after=0`,
      service.key,
      (event) => {
        if (event === "agent.mcp_tool_use") used = performance.now();
        if (event === "agent.mcp_tool_result") onResult?.();
        if (event === "session.status_idle") onIdle?.();
      },
      stop.signal,
    );

    const viaSession: number[] = [];
    const turns: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const result = new Promise<number>((resolve) => (onResult = () => resolve(performance.now() - used)));
      const idle = new Promise<void>((resolve) => (onIdle = resolve));
      const t0 = performance.now();
      await service.post(`/v1/sessions/${String(session.id)}/events`, {
        events: [{ type: "user.message", content: [{ type: "text", text: `/tool mcp__tools__echo {"text":"call ${i}"}` }] }],
      });
      const ms = await result;
      await idle;
      if (i >= WARMUP) {
        viaSession.push(ms);
        turns.push(performance.now() - t0);
      }
    }
    const directMs = await direct(mcp.url);

    const d = summary(directMs);
    const s = summary(viaSession);
    const t = summary(turns);
    console.log(`MCP tool call (echo), ${SAMPLES} calls each, one after another`);
    console.log(`    direct SDK client         p50 ${f(d.p50)} ms   p99 ${f(d.p99)} ms`);
    console.log(`    via session (use→result)  p50 ${f(s.p50)} ms   p99 ${f(s.p99)} ms`);
    console.log(`    service overhead          p50 ${f(s.p50 - d.p50)} ms   (target < 5 ms)`);
    console.log(`    whole turn with the call  p50 ${f(t.p50)} ms   p99 ${f(t.p99)} ms   (POST → session.status_idle)`);
  } finally {
    stop.abort();
    await service.close();
    await mcp.close();
  }
}

await main();
