/**
 * A scripted stand-in for an OpenAI-compatible server on 127.0.0.1: `POST …/chat/completions` answers in
 * Chat Completions' SSE format (`data: {chunk}` … `data: [DONE]`), and errors with OpenAI's status codes
 * and error body. Tests queue replies with `push`; with the queue empty it echoes the last user text as
 * `echo: <text>`. Every request is recorded, with the time it arrived, for assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeToolCall {
  /** Omitted: the chunk carries no id (as some servers do). */
  id?: string;
  name: string;
  /** The arguments' JSON as streamed; `input` serialized when absent. */
  arguments?: string;
  input?: unknown;
}

/** A streamed answer: reasoning, then text, then tool calls, then the finish reason and the usage chunk. */
export interface FakeChat {
  text?: string;
  reasoning?: string;
  /** Which delta field carries the reasoning (default `reasoning_content`). */
  reasoningField?: "reasoning_content" | "reasoning";
  toolCalls?: FakeToolCall[];
  /** The tool calls' argument fragments alternate between the calls. */
  interleaved?: boolean;
  refusal?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number; reasoning_tokens?: number };
  /** Characters per content, reasoning and argument fragment (default 8). */
  chunkSize?: number;
  /** Pause before each chunk after the first (default 0). */
  delayMs?: number;
  /** Default `tool_calls` with tool calls, else `stop`. */
  finishReason?: string;
  /** Ends the response after the content: no finish reason, no usage, no [DONE]. */
  cut?: boolean;
  /** Answers one JSON completion even to a streaming request. */
  asJson?: boolean;
}

/** An HTTP error with OpenAI's body `{error: {message, type, code}}`. */
export interface FakeChatError {
  status: number;
  message?: string;
  type?: string;
  code?: string;
  /** Sent as the `retry-after` header (seconds). */
  retryAfter?: number | string;
}

export type FakeChatReply = FakeChat | FakeChatError;

export interface RecordedChatRequest {
  path: string;
  headers: Record<string, string>;
  body: any;
  /** `performance.now()` when the request arrived. */
  at: number;
  /** `performance.now()` when its first text chunk was written. */
  firstTextAt?: number;
}

function split(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function lastUserText(body: any): string {
  const last = [...(Array.isArray(body?.messages) ? body.messages : [])].reverse().find((m: any) => m?.role === "user" || m?.role === "tool");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (Array.isArray(last.content) ? last.content : [])
    .filter((p: any) => p?.type === "text")
    .map((p: any) => String(p.text))
    .join("\n");
}

export class FakeOpenAi {
  readonly requests: RecordedChatRequest[] = [];
  private readonly queue: FakeChatReply[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly opts: { apiKey?: string; models?: string[] },
  ) {}

  /** `apiKey`: requests must carry it as a bearer token; `models`: any other model is a 404, as OpenAI answers it. */
  static async start(opts: { apiKey?: string; models?: string[] } = {}): Promise<FakeOpenAi> {
    const server = createServer((req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeOpenAi(server, `http://127.0.0.1:${port}/v1`, opts);
    return fake;
  }

  push(...replies: FakeChatReply[]): void {
    this.queue.push(...replies);
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      body = undefined;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    const path = (req.url ?? "/").split("?")[0]!;
    const record: RecordedChatRequest = { path, headers, body, at };
    this.requests.push(record);

    if (req.method !== "POST" || !path.endsWith("/chat/completions")) return this.error(res, { status: 404, message: `no route for ${req.method} ${path}` });
    if (this.opts.apiKey && headers["authorization"] !== `Bearer ${this.opts.apiKey}`)
      return this.error(res, { status: 401, code: "invalid_api_key", message: "Incorrect API key provided" });
    if (typeof body?.model !== "string" || !Array.isArray(body.messages)) return this.error(res, { status: 400, message: "model and messages are required" });
    if (this.opts.models && !this.opts.models.includes(body.model))
      return this.error(res, { status: 404, type: "invalid_request_error", code: "model_not_found", message: `The model \`${body.model}\` does not exist` });

    const reply = this.queue.shift() ?? { text: `echo: ${lastUserText(body)}` };
    if ("status" in reply) return this.error(res, reply);
    if (reply.asJson) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: reply.text ?? "" } }] }),
      );
      return;
    }
    await this.stream(res, body, reply, record);
  }

  private error(res: ServerResponse, e: FakeChatError): void {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (e.retryAfter !== undefined) headers["retry-after"] = String(e.retryAfter);
    res.writeHead(e.status, headers);
    const type = e.type ?? (e.status === 429 ? "rate_limit_exceeded" : e.status >= 500 ? "server_error" : "invalid_request_error");
    res.end(JSON.stringify({ error: { message: e.message ?? `error ${e.status}`, type, code: e.code ?? null, param: null } }));
  }

  private async stream(res: ServerResponse, body: any, m: FakeChat, record: RecordedChatRequest): Promise<void> {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const size = Math.max(1, m.chunkSize ?? 8);
    const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model };
    let first = true;
    const send = async (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}): Promise<boolean> => {
      if (!first && m.delayMs) await new Promise((r) => setTimeout(r, m.delayMs));
      first = false;
      if (res.destroyed || res.writableEnded) return false;
      const choices = choice ? [{ index: 0, finish_reason: null, ...choice }] : [];
      res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
      return true;
    };
    if (!(await send({ delta: { role: "assistant", content: "" } }))) return;
    for (const part of split(m.reasoning ?? "", size)) if (!(await send({ delta: { [m.reasoningField ?? "reasoning_content"]: part } }))) return;
    for (const part of split(m.text ?? "", size)) {
      record.firstTextAt ??= performance.now();
      if (!(await send({ delta: { content: part } }))) return;
    }
    for (const part of split(m.refusal ?? "", size)) if (!(await send({ delta: { refusal: part } }))) return;
    for (const delta of this.toolCallDeltas(m, size)) if (!(await send({ delta: { tool_calls: [delta] } }))) return;
    if (m.cut) return void res.end();
    const finish = m.finishReason ?? (m.toolCalls?.length ? "tool_calls" : "stop");
    if (!(await send({ delta: {}, finish_reason: finish }))) return;
    const u = m.usage ?? {};
    const prompt = u.prompt_tokens ?? Math.ceil(JSON.stringify(body.messages).length / 4);
    const completion = u.completion_tokens ?? Math.ceil(((m.text ?? "") + (m.reasoning ?? "") + JSON.stringify(m.toolCalls ?? [])).length / 4);
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
      completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    };
    if (body.stream_options?.include_usage) await send(null, { usage });
    if (!res.destroyed) res.end("data: [DONE]\n\n");
  }

  /** The first fragment of a call carries its id and name; the rest only argument text, by index. */
  private toolCallDeltas(m: FakeChat, size: number): Record<string, unknown>[] {
    const perCall = (m.toolCalls ?? []).map((t, index) => {
      const args = t.arguments ?? JSON.stringify(t.input ?? {});
      const head = { index, ...(t.id ? { id: t.id } : {}), type: "function", function: { name: t.name, arguments: "" } };
      return [head, ...split(args, size).map((part) => ({ index, function: { arguments: part } }))];
    });
    if (!m.interleaved) return perCall.flat();
    const out: Record<string, unknown>[] = [];
    for (let i = 0; perCall.some((c) => i < c.length); i++) for (const c of perCall) if (i < c.length) out.push(c[i]!);
    return out;
  }
}
