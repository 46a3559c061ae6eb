/**
 * A worker's connections to MCP servers, reused between calls. One SDK client per endpoint (server URL
 * and the credential state behind its `Authorization`, so a rotated credential gets a new one):
 * Streamable HTTP first, the legacy SSE transport when the server refuses it (a 4xx to the initializing
 * POST, as the MCP specification's backwards-compatibility section says). At most `capacity` open, the
 * least recently used closed first; each closed after `idleMs` unused; a server's tool list cached for
 * `toolsTtlMs`. Every request has a timeout: the SDK's own is 60 s, and a stream cut mid-call never
 * settles without one. Errors name the server by its configured name only, never a header.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpReadTool } from "../domain/mcp-tools.js";
import { AppError } from "../errors.js";
import { contentText, promptText, resourceText } from "./mcp-content.js";
import { isOutboundRefused } from "./outbound.js";

export interface McpEndpoint {
  /** The server's configured name, for messages. */
  name: string;
  url: string;
  /** The `Authorization` header value, when a credential applies. */
  authorization?: string;
  /** Identifies the credential state (id and last change): a new state opens a new connection. */
  credentialKey?: string;
}

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
  capacity?: number;
  idleMs?: number;
  toolsTtlMs?: number;
  timeoutMs?: number;
  /** Characters of a tool result given to the model; the rest is cut with a note. */
  maxResultChars?: number;
  /** What every request to a server goes through (the outbound guard). */
  fetch?: typeof fetch;
}

interface Connection {
  client: Promise<Client>;
  tools?: { at: number; list: McpToolInfo[] };
  idle?: NodeJS.Timeout;
}

const CLIENT_INFO = { name: "agent-sessions", version: "1.0.0" };
/** Tools listed of one server at most: a server paging without end is cut here. */
const MAX_TOOLS = 1000;

export type McpTransport = "streamable_http" | "sse";

const keyOf = (e: McpEndpoint) => `${e.url}\u0000${e.credentialKey ?? ""}`;

export class McpConnections {
  private readonly open = new Map<string, Connection>();
  private readonly capacity: number;
  private readonly idleMs: number;
  private readonly toolsTtlMs: number;
  private readonly timeoutMs: number;
  private readonly maxResultChars: number;
  private readonly fetch: typeof fetch;

  constructor(opts: McpConnectionOptions = {}) {
    this.capacity = opts.capacity ?? 64;
    this.idleMs = opts.idleMs ?? 60_000;
    this.toolsTtlMs = opts.toolsTtlMs ?? 30_000;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.maxResultChars = opts.maxResultChars ?? 100_000;
    this.fetch = opts.fetch ?? fetch;
  }

  /** Connections open now (for tests and metrics). */
  get size(): number {
    return this.open.size;
  }

  /** The server's tools, from cache when listed within `toolsTtlMs`. Throws `upstream_failed`, or the signal's reason once aborted. */
  async listTools(endpoint: McpEndpoint, signal?: AbortSignal): Promise<McpToolInfo[]> {
    const { connection } = await this.connection(endpoint);
    if (connection.tools && Date.now() - connection.tools.at < this.toolsTtlMs) return connection.tools.list;
    const list = await this.request(endpoint, (client) => this.allTools(client, signal)).catch((err: unknown) => {
      throw signal?.aborted ? signal.reason : err;
    });
    connection.tools = { at: Date.now(), list };
    return list;
  }

  /**
   * Connects anew (not through the pool, so what is tested is a fresh connection), lists the tools and
   * closes. Throws `upstream_failed`, with `upstreamStatus` when the server answered an HTTP error.
   */
  async probe(endpoint: McpEndpoint): Promise<{ transport: McpTransport; tools: McpToolInfo[] }> {
    let opened: { client: Client; transport: McpTransport } | undefined;
    try {
      opened = await this.connect(endpoint);
      return { transport: opened.transport, tools: await this.allTools(opened.client) };
    } catch (err) {
      throw this.failure(endpoint, err);
    } finally {
      await opened?.client.close().catch(() => undefined);
    }
  }

  private async allTools(client: Client, signal?: AbortSignal): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: this.timeoutMs });
      for (const t of page.tools) tools.push({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema as Record<string, unknown> });
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS);
    return tools;
  }

  /** Calls a tool; a server that fails, times out or is unreachable is an error result, not a throw. */
  async callTool(endpoint: McpEndpoint, name: string, args: unknown, signal?: AbortSignal): Promise<McpCallOutcome> {
    return this.outcome(endpoint, signal, async (client) => {
      const result = await client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> }, undefined, { signal, timeout: this.timeoutMs });
      const blocks = Array.isArray(result.content) ? (result.content as unknown[]) : [];
      let text = blocks.map(contentText).filter((t) => t !== "").join("\n");
      if (!text && "structuredContent" in result && result.structuredContent) text = JSON.stringify(result.structuredContent);
      return { ok: result.isError !== true, text };
    });
  }

  /** Reads the server's resources or prompts (the toolset's read tools); failures are error results like a call's. */
  async read(endpoint: McpEndpoint, what: McpReadTool, input: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallOutcome> {
    const options = { signal, timeout: this.timeoutMs };
    const cursor = typeof input.cursor === "string" ? { cursor: input.cursor } : {};
    return this.outcome(endpoint, signal, async (client) => {
      switch (what) {
        case "list_resources": {
          const page = await client.listResources(cursor, options);
          const resources = page.resources.map((r) => ({ uri: r.uri, name: r.name, description: r.description, mimeType: r.mimeType }));
          return { ok: true, text: JSON.stringify({ resources, nextCursor: page.nextCursor }) };
        }
        case "read_resource":
          return { ok: true, text: resourceText((await client.readResource({ uri: String(input.uri ?? "") }, options)).contents) };
        case "list_prompts": {
          const page = await client.listPrompts(cursor, options);
          const prompts = page.prompts.map((p) => ({ name: p.name, description: p.description, arguments: p.arguments }));
          return { ok: true, text: JSON.stringify({ prompts, nextCursor: page.nextCursor }) };
        }
        case "get_prompt": {
          const args = typeof input.arguments === "object" && input.arguments !== null ? Object.fromEntries(Object.entries(input.arguments).map(([k, v]) => [k, String(v)])) : {};
          const prompt = await client.getPrompt({ name: String(input.name ?? ""), arguments: args }, options);
          return { ok: true, text: promptText(prompt.description, prompt.messages) };
        }
      }
    });
  }

  /** Runs a request whose failure is a result: cut to the result bound, and flagged when the server refused the credential. */
  private async outcome(endpoint: McpEndpoint, signal: AbortSignal | undefined, fn: (client: Client) => Promise<McpCallOutcome>): Promise<McpCallOutcome> {
    try {
      const { ok, text } = await this.request(endpoint, fn);
      return { ok, text: text.length > this.maxResultChars ? `${text.slice(0, this.maxResultChars)}\n[cut: the result had ${text.length} characters]` : text };
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (!(err instanceof AppError)) return { ok: false, text: `the MCP server ${endpoint.name} failed the request` };
      return err.details.upstreamStatus === 401 ? { ok: false, text: err.message, unauthorized: true } : { ok: false, text: err.message };
    }
  }

  async close(): Promise<void> {
    const all = [...this.open.keys()];
    await Promise.all(all.map((key) => this.drop(key)));
  }

  /** Runs `fn` on the endpoint's client; a failure drops the connection so the next request reconnects. */
  private async request<T>(endpoint: McpEndpoint, fn: (client: Client) => Promise<T>): Promise<T> {
    const { key, connection } = await this.connection(endpoint);
    try {
      return await fn(await connection.client);
    } catch (err) {
      await this.drop(key);
      throw this.failure(endpoint, err);
    } finally {
      this.touch(key);
    }
  }

  private async connection(endpoint: McpEndpoint): Promise<{ key: string; connection: Connection }> {
    const key = keyOf(endpoint);
    let connection = this.open.get(key);
    if (connection) {
      this.open.delete(key); // re-inserted last: the map's order is the recency order
      this.open.set(key, connection);
    } else {
      while (this.open.size >= this.capacity) await this.drop(this.open.keys().next().value!);
      connection = { client: this.connect(endpoint).then((opened) => opened.client) };
      this.open.set(key, connection);
    }
    try {
      await connection.client;
    } catch (err) {
      this.open.delete(key);
      throw this.failure(endpoint, err);
    }
    this.touch(key);
    return { key, connection };
  }

  private async connect(endpoint: McpEndpoint): Promise<{ client: Client; transport: McpTransport }> {
    const url = new URL(endpoint.url);
    const headers: Record<string, string> = endpoint.authorization ? { authorization: endpoint.authorization } : {};
    const requestInit = { headers };
    const timeout = { timeout: this.timeoutMs };
    const streamable = new Client(CLIENT_INFO);
    try {
      await streamable.connect(new StreamableHTTPClientTransport(url, { requestInit, fetch: this.fetch }), timeout);
      return { client: streamable, transport: "streamable_http" };
    } catch (err) {
      await streamable.close().catch(() => undefined);
      // Authentication failures are the server's answer, not a sign of the older transport.
      if (!(err instanceof StreamableHTTPError) || err.code === undefined || err.code < 400 || err.code >= 500 || err.code === 401 || err.code === 403) throw err;
    }
    const sse = new Client(CLIENT_INFO);
    // The SSE stream's GET is made by an EventSource, which takes headers only through its fetch.
    const withAuth = (u: string | URL, init?: RequestInit) => {
      const merged = new Headers(init?.headers);
      for (const [name, value] of Object.entries(headers)) merged.set(name, value);
      return this.fetch(u, { ...init, headers: merged });
    };
    try {
      await sse.connect(new SSEClientTransport(url, { requestInit, fetch: this.fetch, eventSourceInit: { fetch: withAuth } }), timeout);
    } catch (err) {
      await sse.close().catch(() => undefined);
      throw err;
    }
    return { client: sse, transport: "sse" };
  }

  private touch(key: string): void {
    const connection = this.open.get(key);
    if (!connection) return;
    clearTimeout(connection.idle);
    connection.idle = setTimeout(() => void this.drop(key), this.idleMs);
    connection.idle.unref();
  }

  private async drop(key: string): Promise<void> {
    const connection = this.open.get(key);
    if (!connection) return;
    this.open.delete(key);
    clearTimeout(connection.idle);
    await connection.client.then((c) => c.close()).catch(() => undefined);
  }

  private failure(endpoint: McpEndpoint, err: unknown): AppError {
    if (err instanceof AppError) return err;
    const refused = [err, (err as { cause?: unknown } | null)?.cause].find(isOutboundRefused);
    if (refused) return new AppError("upstream_failed", `the MCP server ${endpoint.name} is not reachable from this service: ${refused.message}`);
    const status = httpStatusOf(err);
    const timedOut = err instanceof Error && /timed out|timeout/i.test(err.message);
    const what = timedOut ? "did not answer in time" : `could not be used${status ? ` (HTTP ${status})` : ""}`;
    return new AppError("upstream_failed", `the MCP server ${endpoint.name} ${what}`, status ? { upstreamStatus: status } : {}, err instanceof Error ? err.message : String(err));
  }
}

/** The HTTP status a transport's error carries: as `code` (Streamable HTTP, the SSE stream) or in the message (the SSE transport's POST). */
function httpStatusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "number" && code >= 100 && code < 600) return code;
  const inMessage = err instanceof Error ? /\(HTTP (\d{3})\)/.exec(err.message) : null;
  return inMessage ? Number(inMessage[1]) : undefined;
}
