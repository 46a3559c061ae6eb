/**
 * A scripted stand-in for the Anthropic Messages API on 127.0.0.1: `POST /v1/messages` answers in the
 * API's SSE format (or as one JSON message without `stream: true`), and errors with the API's status
 * codes and error body. Tests queue replies with `push`; with the queue empty it echoes the last user
 * text as `echo: <text>`. Every request is recorded for assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ERROR_MESSAGES, ERROR_TYPES, type FakeError, type FakeMessage, type FakeReply, type RecordedRequest } from "./fake-anthropic-replies.js";

const tokens = (s: string) => Math.ceil(s.length / 4);

function split(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The text of the last user message: its text blocks, or else its tool results. */
export function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = [...messages].reverse().find((m) => m?.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  const blocks: any[] = Array.isArray(last.content) ? last.content : [];
  const texts = blocks.filter((b) => b?.type === "text").map((b) => String(b.text));
  if (texts.length > 0) return texts.join("\n");
  return blocks
    .filter((b) => b?.type === "tool_result")
    .map((b) => (typeof b.content === "string" ? b.content : JSON.stringify(b.content)))
    .join("\n");
}

export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeReply[] = [];
  private counter = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** When set, requests must carry this key (`x-api-key` or `Authorization: Bearer`). */
    private readonly apiKey: string | undefined,
  ) {}

  static async start(opts: { apiKey?: string } = {}): Promise<FakeAnthropic> {
    // The handler runs only for requests, which come once `fake` exists.
    const server = createServer((req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeAnthropic(server, `http://127.0.0.1:${port}`, opts.apiKey);
    return fake;
  }

  /** Queues replies, answered in order by the next requests. */
  push(...replies: FakeReply[]): void {
    this.queue.push(...replies);
  }

  /** Forgets queued replies and recorded requests. */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
  }

  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    const path = (req.url ?? "/").split("?")[0]!;
    const record: RecordedRequest = { method: req.method ?? "", path, headers, body, closedEarly: false };
    this.requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.closedEarly = true;
    });

    if (req.method !== "POST" || path !== "/v1/messages") return this.error(res, { status: 404, message: `no route for ${req.method} ${path}` });
    if (this.apiKey) {
      const given = headers["x-api-key"] ?? headers["authorization"]?.replace(/^Bearer\s+/i, "");
      if (given !== this.apiKey) return this.error(res, { status: 401 });
    }
    if (typeof body !== "object" || body === null || typeof body.model !== "string" || !Array.isArray(body.messages)) {
      return this.error(res, { status: 400, message: "model and messages are required" });
    }

    const reply: FakeReply = this.queue.shift() ?? { text: `echo: ${lastUserText(body)}` };
    if ("status" in reply) return this.error(res, reply);
    if (body.stream === true && !reply.asJson) await this.stream(res, body, reply, record);
    else this.json(res, body, reply);
  }

  private error(res: ServerResponse, e: FakeError): void {
    const type = e.type ?? ERROR_TYPES[e.status] ?? (e.status >= 500 ? "api_error" : "invalid_request_error");
    const headers: Record<string, string> = { "content-type": "application/json", "request-id": `req_fake_${++this.counter}` };
    if (e.retryAfter !== undefined) headers["retry-after"] = String(e.retryAfter);
    res.writeHead(e.status, headers);
    res.end(JSON.stringify({ type: "error", error: { type, message: e.message ?? ERROR_MESSAGES[type] ?? "Error" } }));
  }

  private usage(body: any, m: FakeMessage) {
    const output = (m.text ?? "") + (m.thinking ?? "") + JSON.stringify(m.toolUses ?? []);
    return {
      input_tokens: m.usage?.input_tokens ?? tokens(JSON.stringify(body.system ?? "") + JSON.stringify(body.messages)),
      output_tokens: m.usage?.output_tokens ?? tokens(output),
      cache_creation_input_tokens: m.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: m.usage?.cache_read_input_tokens ?? 0,
    };
  }

  private stopReason(m: FakeMessage): string {
    return m.stopReason ?? (m.toolUses && m.toolUses.length > 0 ? "tool_use" : "end_turn");
  }

  private json(res: ServerResponse, body: any, m: FakeMessage): void {
    const content: unknown[] = [];
    if (m.thinking) content.push({ type: "thinking", thinking: m.thinking, signature: "sig_fake" });
    if (m.text !== undefined) content.push({ type: "text", text: m.text, citations: null });
    for (const t of m.toolUses ?? []) content.push({ type: "tool_use", id: t.id, name: t.name, input: t.input });
    res.writeHead(200, { "content-type": "application/json", "request-id": `req_fake_${++this.counter}` });
    res.end(
      JSON.stringify({
        id: `msg_fake_${this.counter}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: this.stopReason(m),
        stop_sequence: null,
        usage: this.usage(body, m),
      }),
    );
  }

  private async stream(res: ServerResponse, body: any, m: FakeMessage, record: RecordedRequest): Promise<void> {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_fake_${++this.counter}` });
    const usage = this.usage(body, m);
    const size = Math.max(1, m.chunkSize ?? 8);
    const delay = m.delayMs ?? 0;
    let first = true;
    const send = async (event: string, data: unknown): Promise<boolean> => {
      if (!first && delay > 0) await new Promise((r) => setTimeout(r, delay));
      first = false;
      if (res.destroyed || res.writableEnded) return false;
      if (event === "content_block_delta" && (data as { delta: { type: string } }).delta.type === "text_delta") record.firstTextAt ??= performance.now();
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      return true;
    };
    const ok = async (...steps: [string, unknown][]) => {
      for (const [event, data] of steps) if (!(await send(event, data))) return false;
      return true;
    };

    const message = {
      id: `msg_fake_${this.counter}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    };
    if (!(await ok(["message_start", { type: "message_start", message }]))) return;
    if (m.stall) return; // the connection stays open until the client gives up
    if (!(await ok(["ping", { type: "ping" }]))) return;

    let index = 0;
    if (m.thinking) {
      const steps: [string, unknown][] = [
        ["content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }],
      ];
      for (const part of split(m.thinking, size))
        steps.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: part } }]);
      steps.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: "sig_fake" } }]);
      steps.push(["content_block_stop", { type: "content_block_stop", index }]);
      if (!(await ok(...steps))) return;
      index++;
    }
    if (m.text !== undefined) {
      const steps: [string, unknown][] = [
        ["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "", citations: null } }],
      ];
      for (const part of split(m.text, size))
        steps.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: part } }]);
      if (!(await ok(...steps))) return;
      if (m.streamError) {
        await send("error", { type: "error", error: m.streamError });
        res.end();
        return;
      }
      if (!(await ok(["content_block_stop", { type: "content_block_stop", index }]))) return;
      index++;
    } else if (m.streamError) {
      await send("error", { type: "error", error: m.streamError });
      res.end();
      return;
    }
    for (const t of m.toolUses ?? []) {
      const json = t.rawJson ?? (t.input === undefined ? "" : JSON.stringify(t.input));
      const steps: [string, unknown][] = [
        ["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: t.id, name: t.name, input: {} } }],
      ];
      for (const part of split(json, size))
        steps.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } }]);
      steps.push(["content_block_stop", { type: "content_block_stop", index }]);
      if (!(await ok(...steps))) return;
      index++;
    }
    if (m.truncate) {
      res.end();
      return;
    }
    await ok(
      [
        "message_delta",
        { type: "message_delta", delta: { stop_reason: this.stopReason(m), stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
      ],
      ["message_stop", { type: "message_stop" }],
    );
    res.end();
  }
}
