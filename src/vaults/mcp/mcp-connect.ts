/**
 * Opening one MCP client, and what its failures mean. Streamable HTTP first, the legacy SSE transport
 * when the server refuses it (a 4xx to the initializing POST other than 401/403, as the MCP
 * specification's backwards-compatibility section says). The whole opening has one deadline: the SDK
 * times out the `initialize` request but not the transport's start, and an SSE server that keeps its
 * stream open without ever naming its endpoint would otherwise hold the connection, and whatever waits
 * on it, for ever.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../../errors.js";
import { outboundRefusal } from "../../outbound/outbound.js";
import { tracedFetch } from "../../telemetry/tracing.js";

export type McpTransport = "streamable_http" | "sse";

export interface McpEndpoint {
  /** The server's configured name, for messages. */
  name: string;
  url: string;
  /** Whose connection it is (the organization): connections are never shared between owners. */
  owner: string;
  /** The `Authorization` header value, when a credential applies. */
  authorization?: string;
  /** Identifies the credential's secrets (id and version): new secrets open a new connection. */
  credentialKey?: string;
}

const CLIENT_INFO = { name: "agent-sessions", version: "1.0.0" };

class ConnectTimeout extends Error {
  constructor() {
    super("connecting timed out");
  }
}

/** `opening` within `ms`, else the client is closed (ending its transport's requests) and a timeout thrown. */
async function within<T>(opening: Promise<T>, client: Client, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void client.close().catch(() => undefined);
      reject(new ConnectTimeout());
    }, ms);
  });
  try {
    return await Promise.race([opening, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export async function connectMcp(endpoint: McpEndpoint, fetchFn: typeof fetch, timeoutMs: number): Promise<{ client: Client; transport: McpTransport }> {
  const url = new URL(endpoint.url);
  // Both transports put these headers on every request, the SSE stream's GET included.
  const headers: Record<string, string> = endpoint.authorization ? { authorization: endpoint.authorization } : {};
  const requestInit = { headers };
  // Every request carries the trace context of the call it serves (the span active when it is sent).
  fetchFn = tracedFetch(fetchFn);
  const timeout = { timeout: timeoutMs };
  const started = Date.now();
  const streamable = new Client(CLIENT_INFO);
  try {
    await within(streamable.connect(new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchFn }), timeout), streamable, timeoutMs);
    return { client: streamable, transport: "streamable_http" };
  } catch (err) {
    await streamable.close().catch(() => undefined);
    // Authentication failures are the server's answer, not a sign of the older transport.
    if (!(err instanceof StreamableHTTPError) || err.code === undefined || err.code < 400 || err.code >= 500 || err.code === 401 || err.code === 403) throw err;
  }
  const sse = new Client(CLIENT_INFO);
  try {
    await within(sse.connect(new SSEClientTransport(url, { requestInit, fetch: fetchFn }), timeout), sse, Math.max(1, timeoutMs - (Date.now() - started)));
  } catch (err) {
    await sse.close().catch(() => undefined);
    throw err;
  }
  return { client: sse, transport: "sse" };
}

/**
 * The HTTP status a transport's error carries: `code` of the Streamable HTTP and SSE stream errors, or
 * the status the SSE transport puts in the message of a failed POST. A server's JSON-RPC error is
 * never an HTTP status, whatever its text says.
 */
export function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof StreamableHTTPError || err instanceof SseError)
    return typeof err.code === "number" && err.code >= 100 && err.code < 600 ? err.code : undefined;
  if (err instanceof McpError || !(err instanceof Error)) return undefined;
  const posted = /^Error POSTing to endpoint \(HTTP (\d{3})\)/.exec(err.message);
  return posted ? Number(posted[1]) : undefined;
}

/** Whether the failure is the server answering a request (its connection still sound), not the connection failing. */
export function isServerAnswer(err: unknown): err is McpError {
  return err instanceof McpError && err.code !== ErrorCode.ConnectionClosed && err.code !== ErrorCode.RequestTimeout;
}

/**
 * A failure as `upstream_failed`, naming the server by its configured name. The message and the log's
 * cause hold the kind of failure and the HTTP status, never a response body (a server may echo a token).
 */
export function mcpFailure(endpoint: McpEndpoint, err: unknown): AppError {
  if (err instanceof AppError) return err;
  const refused = outboundRefusal(err);
  if (refused) return new AppError("upstream_failed", `the MCP server ${endpoint.name} is not reachable from this service: ${refused.message}`);
  if (isServerAnswer(err)) return new AppError("upstream_failed", `the MCP server ${endpoint.name} answered with an error: ${err.message}`);
  const status = httpStatusOf(err);
  const timedOut = err instanceof ConnectTimeout || (err instanceof McpError && err.code === ErrorCode.RequestTimeout);
  const what = timedOut ? "did not answer in time" : `could not be used${status ? ` (HTTP ${status})` : ""}`;
  const cause = `${err instanceof Error ? err.constructor.name : typeof err}${status ? ` HTTP ${status}` : ""}${err instanceof McpError ? ` code ${err.code}` : ""}`;
  return new AppError("upstream_failed", `the MCP server ${endpoint.name} ${what}`, status ? { upstreamStatus: status } : {}, cause);
}
