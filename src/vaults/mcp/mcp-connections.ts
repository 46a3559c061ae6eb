/**
 * A worker's connections to MCP servers, reused between calls. One SDK client per endpoint: its owner
 * (connections are never shared between organizations, since a server may keep state per session),
 * the server URL and the credential's secrets behind its `Authorization` (new secrets get a new
 * connection, and the old one is closed). At most `capacity` open, the least recently used closed
 * first; each closed after `idleMs` unused; a server's tool list cached for `toolsTtlMs`. Every request
 * has a timeout (the SDK's own is 60 s, and a stream cut mid-call never settles without one), and so
 * has opening a connection (`mcp-connect.ts`). Errors name the server by its configured name only,
 * never a header.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpReadTool } from "../domain/mcp-tools.js";
import { AppError } from "../../errors.js";
import { connectMcp, isServerAnswer, mcpFailure, type McpEndpoint, type McpTransport } from "./mcp-connect.js";
import { contentText, readAsText } from "./mcp-content.js";
import { failed, SpanKind, tracing, withSpan } from "../../telemetry/tracing.js";

export type { McpEndpoint, McpTransport } from "./mcp-connect.js";

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpCallOutcome {
  ok: boolean;
  text: string;
  /** The server refused the credential (HTTP 401): a refreshed token may be accepted. */
  unauthorized?: true;
}

export interface McpConnectionOptions {
  /** What every request to a server goes through: the outbound guard. */
  fetch: typeof fetch;
  capacity?: number;
  idleMs?: number;
  toolsTtlMs?: number;
  timeoutMs?: number;
  /** Characters of a tool result given to the model; the rest is cut with a note. */
  maxResultChars?: number;
}

interface Connection {
  client: Promise<Client>;
  tools?: { at: number; list: McpToolInfo[] };
  /** The listing under way, if any. */
  listing?: Promise<McpToolInfo[]>;
  idle?: NodeJS.Timeout;
}

/** Tools listed of one server at most, and pages read for them: a server paging without end is cut here. */
const MAX_TOOLS = 1000;
const MAX_PAGES = 100;

/** `promise`, or the signal's reason as soon as it aborts (the work goes on for the others waiting on it). */
function orAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err as Error);
      },
    );
  });
}

const serverKey = (e: McpEndpoint) => `${e.owner}\u0000${e.url}\u0000`;
const keyOf = (e: McpEndpoint) => `${serverKey(e)}${e.credentialKey ?? ""}`;

export class McpConnections {
  private readonly open = new Map<string, Connection>();
  private readonly fetch: typeof fetch;
  private readonly capacity: number;
  private readonly idleMs: number;
  private readonly toolsTtlMs: number;
  private readonly timeoutMs: number;
  private readonly maxResultChars: number;

  constructor(opts: McpConnectionOptions) {
    this.fetch = opts.fetch;
    this.capacity = opts.capacity ?? 64;
    this.idleMs = opts.idleMs ?? 60_000;
    this.toolsTtlMs = opts.toolsTtlMs ?? 30_000;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.maxResultChars = opts.maxResultChars ?? 100_000;
  }

  /** Connections open now (for tests and metrics). */
  get size(): number {
    return this.open.size;
  }

  /**
   * The server's tools, from cache when listed within `toolsTtlMs`; a listing under way is shared, so a
   * turn that starts while its session is being prepared waits for the preparation's list rather than
   * asking again. Throws `upstream_failed`, or the signal's reason once aborted.
   */
  async listTools(endpoint: McpEndpoint, signal?: AbortSignal): Promise<McpToolInfo[]> {
    const key = keyOf(endpoint);
    const open = this.open.get(key);
    if (open?.tools && Date.now() - open.tools.at < this.toolsTtlMs) return open.tools.list;
    return orAbort(open?.listing ?? this.startListing(endpoint, key), signal);
  }

  /** Lists the tools for every caller waiting; no caller's abort stops it (the request timeout bounds it). */
  private startListing(endpoint: McpEndpoint, key: string): Promise<McpToolInfo[]> {
    const listed = this.request(endpoint, undefined, (client) => this.allTools(client));
    // `request` has put the connection in the map before its first await.
    const connection = this.open.get(key);
    const listing = listed.then((list) => {
      if (connection && this.open.get(key) === connection) connection.tools = { at: Date.now(), list };
      return list;
    });
    if (connection) {
      connection.listing = listing;
      const done = () => {
        if (connection.listing === listing) connection.listing = undefined;
      };
      listing.then(done, done);
    }
    return listing;
  }

  /**
   * Connects anew (not through the pool, so what is tested is a fresh connection), lists the tools and
   * closes. Throws `upstream_failed`, with `upstreamStatus` when the server answered an HTTP error.
   */
  async probe(endpoint: McpEndpoint): Promise<{ transport: McpTransport; tools: McpToolInfo[] }> {
    let opened: { client: Client; transport: McpTransport } | undefined;
    try {
      opened = await connectMcp(endpoint, this.fetch, this.timeoutMs);
      return { transport: opened.transport, tools: await this.allTools(opened.client) };
    } catch (err) {
      throw mcpFailure(endpoint, err);
    } finally {
      await opened?.client.close().catch(() => undefined);
    }
  }

  /** Calls a tool; a server that fails, times out or is unreachable is an error result, not a throw. */
  async callTool(endpoint: McpEndpoint, name: string, args: unknown, signal?: AbortSignal): Promise<McpCallOutcome> {
    if (!tracing()) return this.toolCall(endpoint, name, args, signal);
    // The MCP conventions' client span; the server's address, never its whole URL (which may carry a token).
    const attributes = () => {
      const url = new URL(endpoint.url);
      const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
      return {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "server.address": url.hostname,
        "server.port": port,
      };
    };
    return withSpan(
      `tools/call ${name}`,
      attributes,
      async (span) => {
        const outcome = await this.toolCall(endpoint, name, args, signal);
        if (!outcome.ok) failed(span, new Error("the tool answered an error"));
        return outcome;
      },
      { kind: SpanKind.CLIENT },
    );
  }

  private toolCall(endpoint: McpEndpoint, name: string, args: unknown, signal?: AbortSignal): Promise<McpCallOutcome> {
    return this.outcome(endpoint, signal, async (client) => {
      const result = await client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> }, undefined, { signal, timeout: this.timeoutMs });
      const blocks = Array.isArray(result.content) ? (result.content as unknown[]) : [];
      let text = blocks
        .map(contentText)
        .filter((t) => t !== "")
        .join("\n");
      if (!text && "structuredContent" in result && result.structuredContent) text = JSON.stringify(result.structuredContent);
      return { ok: result.isError !== true, text };
    });
  }

  /** Reads the server's resources or prompts (the toolset's read tools); failures are error results like a call's. */
  async read(endpoint: McpEndpoint, what: McpReadTool, input: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallOutcome> {
    return this.outcome(endpoint, signal, async (client) => ({ ok: true, text: await readAsText(client, what, input, { signal, timeout: this.timeoutMs }) }));
  }

  /** Closes the owner's connections to the endpoint's server made with other secrets (rotated, archived, refreshed). */
  retireOthers(endpoint: McpEndpoint): void {
    const server = serverKey(endpoint);
    const current = keyOf(endpoint);
    for (const key of [...this.open.keys()]) if (key.startsWith(server) && key !== current) void this.drop(key);
  }

  /** Closes every connection and waits for them to close (shutdown). */
  async close(): Promise<void> {
    const closing = [...this.open.keys()].map((key) => this.drop(key));
    await Promise.all(closing);
  }

  private async allTools(client: Client, signal?: AbortSignal): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS; page++) {
      const listed = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: this.timeoutMs });
      for (const t of listed.tools) tools.push({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema as Record<string, unknown> });
      cursor = listed.nextCursor;
      if (!cursor || seen.has(cursor)) break;
      seen.add(cursor);
    }
    return tools.slice(0, MAX_TOOLS);
  }

  /** Runs a request whose failure is a result: cut to the result bound, and flagged when the server refused the credential. */
  private async outcome(endpoint: McpEndpoint, signal: AbortSignal | undefined, fn: (client: Client) => Promise<McpCallOutcome>): Promise<McpCallOutcome> {
    try {
      const { ok, text } = await this.request(endpoint, signal, fn);
      return { ok, text: text.length > this.maxResultChars ? `${text.slice(0, this.maxResultChars)}\n[cut: the result had ${text.length} characters]` : text };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (!(err instanceof AppError)) return { ok: false, text: `the MCP server ${endpoint.name} failed the request` };
      return err.details.upstreamStatus === 401 ? { ok: false, text: err.message, unauthorized: true } : { ok: false, text: err.message };
    }
  }

  /**
   * Runs `fn` on the endpoint's client. A failure of the connection drops it, so the next request
   * reconnects; the caller's own abort and a server's error answer leave it to the other requests on it.
   */
  private async request<T>(endpoint: McpEndpoint, signal: AbortSignal | undefined, fn: (client: Client) => Promise<T>): Promise<T> {
    const key = keyOf(endpoint);
    const connection = await this.connection(endpoint, key);
    try {
      return await fn(await connection.client);
    } catch (err) {
      if (!signal?.aborted && !isServerAnswer(err)) void this.drop(key, connection);
      throw mcpFailure(endpoint, err);
    } finally {
      this.touch(key);
    }
  }

  private async connection(endpoint: McpEndpoint, key: string): Promise<Connection> {
    let connection = this.open.get(key);
    if (connection) {
      this.open.delete(key); // re-inserted last: the map's order is the recency order
      this.open.set(key, connection);
    } else {
      while (this.open.size >= this.capacity) void this.drop(this.open.keys().next().value!);
      connection = { client: connectMcp(endpoint, this.fetch, this.timeoutMs).then((opened) => opened.client) };
      this.open.set(key, connection);
    }
    try {
      await connection.client;
    } catch (err) {
      if (this.open.get(key) === connection) this.open.delete(key);
      throw mcpFailure(endpoint, err);
    }
    this.touch(key);
    return connection;
  }

  private touch(key: string): void {
    const connection = this.open.get(key);
    if (!connection) return;
    clearTimeout(connection.idle);
    connection.idle = setTimeout(() => void this.drop(key), this.idleMs);
    connection.idle.unref();
  }

  /**
   * Forgets the connection under `key` (only `expected`, when given: a newer one may have taken its
   * place) and closes it once it has opened; the returned promise settles when it is closed, and no
   * caller needs to wait for it but shutdown (opening has a deadline, so it does settle).
   */
  private drop(key: string, expected?: Connection): Promise<void> {
    const connection = this.open.get(key);
    if (!connection || (expected && connection !== expected)) return Promise.resolve();
    this.open.delete(key);
    clearTimeout(connection.idle);
    return connection.client.then((c) => c.close()).catch(() => undefined);
  }
}
