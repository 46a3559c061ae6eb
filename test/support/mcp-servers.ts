/**
 * Real MCP servers for tests, each on 127.0.0.1 on a port of its own: the published reference server
 * (`@modelcontextprotocol/server-everything`) in a child process, and SDK-built servers with the tools of
 * mcp-tools.ts behind a static bearer token, behind expiring OAuth access tokens, or on the legacy SSE
 * transport only.
 */
import { spawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { checkBearer, createToolServer, listenLoopback, serveStatelessMcp, type AuthRecord, type MethodRecord } from "./mcp-tools.js";
import { TokenIssuer, type OAuthServerOptions, type TokenPair } from "./oauth-token-endpoint.js";

export { FAIL_TEXT, type AuthRecord } from "./mcp-tools.js";
export type { OAuthServerOptions, TokenEndpointAuth, TokenPair } from "./oauth-token-endpoint.js";

export interface McpTestServer {
  /** The MCP endpoint to connect to. */
  url: string;
  close(): Promise<void>;
}

export interface BearerServer extends McpTestServer {
  auth: AuthRecord;
}

/** `methods`: the JSON-RPC method of every message an accepted request posted, in order (`initialize`, `tools/list`…); `answered`: the same once answered. */
export interface RecordingServer extends BearerServer, MethodRecord {}

export interface OAuthServer extends McpTestServer {
  /** What the MCP endpoint saw of the access tokens. */
  auth: AuthRecord;
  /** The token endpoint (`POST`, refresh grant only). */
  tokenUrl: string;
  /** Requests the token endpoint received, refused ones included. */
  readonly refreshCalls: number;
  /** A new token pair, as if the client had just been authorized. */
  issue(): TokenPair;
  /** Every access token issued so far expires now; refresh tokens stay usable. */
  expireAccessTokens(): void;
}

const newAuthRecord = (): AuthRecord => ({ headers: [], traceparents: [], accepted: 0, refused: 0 });

function notFound(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not_found" }));
}

const pathOf = (req: IncomingMessage) => new URL(req.url ?? "/", "http://127.0.0.1").pathname;

const EVERYTHING_START_TIMEOUT_MS = 15_000;

/**
 * The reference server over Streamable HTTP: `node dist/index.js streamableHttp`, which listens on
 * `process.env.PORT` on every interface and serves `/mcp` with sessions. loopback-listen.js, preloaded,
 * makes that 127.0.0.1 and reports the port chosen for PORT=0. Its stdout (a line per request) is dropped;
 * its stderr is kept to explain a failed start.
 */
export async function startEverythingServer(): Promise<McpTestServer> {
  const entry = fileURLToPath(import.meta.resolve("@modelcontextprotocol/server-everything/dist/index.js"));
  const preload = new URL("./loopback-listen.js", import.meta.url).href;
  const child = spawn(process.execPath, ["--import", preload, entry, "streamableHttp"], {
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      child.off("exit", onExit).off("error", onError).off("message", onMessage);
    };
    const fail = (why: string) => {
      settle();
      child.kill("SIGKILL");
      reject(new Error(`server-everything did not start: ${why}\n${stderr}`));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited (${code ?? signal})`);
    const onError = (err: Error) => fail(err.message);
    const onMessage = (msg: unknown) => {
      if (typeof msg !== "object" || msg === null || !("listening" in msg) || typeof msg.listening !== "number") return;
      settle();
      // The channel served only to learn the port.
      child.disconnect();
      resolve(msg.listening);
    };
    const timer = setTimeout(() => fail(`no port within ${EVERYTHING_START_TIMEOUT_MS} ms`), EVERYTHING_START_TIMEOUT_MS);
    child.on("exit", onExit).on("error", onError).on("message", onMessage);
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * The test tools behind `Authorization: Bearer <token>`, on `/mcp`. Stateless (a server and transport per
 * request): the credential is checked on every request anyway, so a session would add only state to
 * clean up, and a stateless server is what a service must cope with when a session can't be counted on.
 * `delayMs` holds each request that long before it is answered: a network round trip, for benchmarks.
 */
export async function startBearerServer(options: { token: string; delayMs?: number }): Promise<RecordingServer> {
  const auth = newAuthRecord();
  const record: MethodRecord = { methods: [], answered: [] };
  const http = await listenLoopback(async (req, res) => {
    if (options.delayMs) await delay(options.delayMs);
    if (pathOf(req) !== "/mcp") return notFound(res);
    if (!checkBearer(req, res, auth, (token) => (token === options.token ? "valid" : "unknown"))) return;
    await serveStatelessMcp(req, res, record);
  });
  return { url: `${http.origin}/mcp`, auth, ...record, close: http.close };
}

/**
 * The test tools on `/mcp` behind access tokens that expire after `accessTokenTtlMs`, and `/token` to
 * refresh them with the client authentication method chosen. Stateless, as the bearer server and for the
 * same reason: each request's token is checked on its own, so an expiry shows at the very next request.
 */
export async function startOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const auth = newAuthRecord();
  const issuer = new TokenIssuer(options);
  const http = await listenLoopback(async (req, res) => {
    const path = pathOf(req);
    if (path === "/token") return issuer.handle(req, res);
    if (path !== "/mcp") return notFound(res);
    if (!checkBearer(req, res, auth, (token) => issuer.check(token))) return;
    await serveStatelessMcp(req, res);
  });
  return {
    url: `${http.origin}/mcp`,
    tokenUrl: `${http.origin}/token`,
    auth,
    get refreshCalls() {
      return issuer.refreshCalls;
    },
    issue: () => issuer.issue(),
    expireAccessTokens: () => issuer.expireAccessTokens(),
    close: http.close,
  };
}

/**
 * The test tools on the legacy HTTP+SSE transport only (protocol 2024-11-05, the SDK's deprecated
 * `SSEServerTransport`): `GET /sse` opens a session's stream, whose first event names
 * `/messages?sessionId=…` for the client's POSTs. A POST to `/sse` (a Streamable HTTP attempt) is 405,
 * as an old server answers, so a client's fallback from Streamable HTTP to SSE can be tested. With
 * `token`, the stream's GET and every POST need `Authorization: Bearer <token>`.
 */
export async function startSseOnlyServer(options: { token?: string } = {}): Promise<BearerServer> {
  const sessions = new Map<string, { transport: SSEServerTransport; server: McpServer }>();
  const auth = newAuthRecord();
  const http = await listenLoopback(async (req, res) => {
    const path = pathOf(req);
    const { token } = options;
    // The stream and the messages need the token; a POST to /sse is refused as an old server does, before any check.
    const guarded = (path === "/sse" && req.method === "GET") || path === "/messages";
    if (token !== undefined && guarded && !checkBearer(req, res, auth, (t) => (t === token ? "valid" : "unknown"))) return;
    if (path === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      const server = createToolServer();
      sessions.set(transport.sessionId, { transport, server });
      res.on("close", () => {
        sessions.delete(transport.sessionId);
        void server.close();
      });
      await server.connect(transport);
      return;
    }
    if (path === "/sse") {
      res.writeHead(405, { allow: "GET" }).end();
      return;
    }
    if (path === "/messages" && req.method === "POST") {
      const sessionId = new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("sessionId") ?? "";
      const session = sessions.get(sessionId);
      if (session === undefined) return notFound(res);
      await session.transport.handlePostMessage(req, res);
      return;
    }
    notFound(res);
  });
  return {
    url: `${http.origin}/sse`,
    auth,
    async close() {
      await Promise.all([...sessions.values()].map(({ server }) => server.close()));
      await http.close();
    },
  };
}
