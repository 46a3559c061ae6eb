/**
 * The tools every SDK-built test MCP server offers, and the plumbing those servers share: a stateless
 * Streamable HTTP handler, bearer checks that record what they saw, and loopback listening.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** The text the `fail` tool answers with, so tests can match it. */
export const FAIL_TEXT = "the fail tool always fails";

/** A fresh MCP server with `echo`, `add`, `fail` and `slow`; one per connection, as the SDK requires. */
export function createToolServer(): McpServer {
  const server = new McpServer({ name: "agent-sessions-test-tools", version: "1.0.0" });
  server.registerTool("echo", { description: "Answers with the text it was given", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("fail", { description: "Always answers with a tool error", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: FAIL_TEXT }],
    isError: true,
  }));
  server.registerTool(
    "slow",
    { description: "Waits `ms` milliseconds, then answers", inputSchema: { ms: z.number().int().min(0) } },
    // The request's signal ends the wait when the client cancels or the server closes, so no timer outlives a test.
    async ({ ms }, extra) => {
      await delay(ms, undefined, { signal: extra.signal });
      return { content: [{ type: "text", text: `waited ${ms} ms` }] };
    },
  );
  return server;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** The JSON-RPC methods an MCP endpoint was sent, and those it has answered. */
export interface MethodRecord {
  methods: string[];
  answered: string[];
}

/** A request's body as JSON (undefined when it is not). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Serves one Streamable HTTP request statelessly: a new server and transport per POST, as the SDK's
 * stateless mode requires. GET (the optional server-to-client stream) and DELETE (ending a session)
 * have no meaning without sessions: 405, which the SDK client takes as "no stream offered". `record`
 * gets the JSON-RPC method of each message posted (`initialize`, `tools/list`…), in order, and again
 * in `answered` once its answer is sent in full.
 */
export async function serveStatelessMcp(req: IncomingMessage, res: ServerResponse, record?: MethodRecord): Promise<void> {
  if (req.method !== "POST") {
    json(res, 405, { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed" }, id: null }, { allow: "POST" });
    return;
  }
  const server = createToolServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  if (!record) return transport.handleRequest(req, res);
  const body = await readJson(req);
  const methods = [body].flat().flatMap((m) => (typeof m === "object" && m !== null && "method" in m && typeof m.method === "string" ? [m.method] : []));
  record.methods.push(...methods);
  res.once("finish", () => record.answered.push(...methods));
  await transport.handleRequest(req, res, body);
}

/** What an MCP endpoint saw of the credential, so tests can assert that the service sent it. */
export interface AuthRecord {
  /** Every `Authorization` header received, in order (undefined where there was none). */
  headers: (string | undefined)[];
  /** Every `traceparent` header received, in order (undefined where there was none). */
  traceparents: (string | undefined)[];
  accepted: number;
  refused: number;
}

export type TokenState = "valid" | "expired" | "unknown";

/**
 * Lets the request through when its bearer token is valid; otherwise answers 401 with the challenge
 * of RFC 6750 §3 (no error code when no credential came, `invalid_token` when a wrong or expired one did).
 */
export function checkBearer(req: IncomingMessage, res: ServerResponse, record: AuthRecord, check: (token: string) => TokenState): boolean {
  const header = req.headers.authorization;
  record.headers.push(header);
  record.traceparents.push([req.headers.traceparent ?? []].flat()[0]);
  const match = header === undefined ? null : /^Bearer ([^\s]+)$/i.exec(header);
  const state: TokenState = match?.[1] === undefined ? "unknown" : check(match[1]);
  if (state === "valid") {
    record.accepted++;
    return true;
  }
  record.refused++;
  const challenge =
    header === undefined
      ? 'Bearer realm="mcp"'
      : `Bearer realm="mcp", error="invalid_token", error_description="the access token is ${state === "expired" ? "expired" : "not valid"}"`;
  json(res, 401, { error: header === undefined ? "unauthorized" : "invalid_token" }, { "www-authenticate": challenge });
  return false;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Listening {
  server: Server;
  origin: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 on a port the kernel picks; a handler that throws gets a 500 rather than a hung request. */
export async function listenLoopback(handler: Handler): Promise<Listening> {
  const server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else json(res, 500, { error: "server_error", message: err instanceof Error ? err.message : String(err) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    // Open streams (SSE, a slow tool call) would hold close() forever: they are cut first.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
