import { expect } from "chai";
import type { Attachment } from "../src/sessions/domain/events.js";
import { OpenAiProvider, type OpenAiOptions } from "../src/providers/openai.js";
import { askAboutImage } from "../src/providers/image-question.js";
import { costOf } from "../src/providers/pricing.js";
import type { ModelMessage, StreamHandlers } from "../src/providers/provider.js";
import { FakeOpenAi } from "./support/fake-openai.js";
import { expectFailure, recorder, request } from "./anthropic-provider-cases.js";

const KEY = "sk-openai-test-0123456789abcdef";

/** The recorder, plus the provisional tool-call frames in order. */
function withToolFrames(): StreamHandlers & ReturnType<typeof recorder> & { tools: { id: string; name: string; input?: unknown }[] } {
  const h = recorder();
  const tools: { id: string; name: string; input?: unknown }[] = [];
  return Object.assign(h, { tools, onToolUseStreaming: async (use: { id: string; name: string; input?: unknown }) => void tools.push(use) });
}

describe("the openai provider against a fake OpenAI-compatible server", () => {
  let fake: FakeOpenAi;
  const provider = (over: Partial<OpenAiOptions> = {}) =>
    new OpenAiProvider({ name: "openai", apiKey: KEY, apiKeyEnv: "OPENAI_API_KEY", baseURL: fake.url, retryBaseMs: 5, ...over });
  const gpt = (over: Parameters<typeof request>[0] = {}) => request({ model: "gpt-4o", ...over });

  before(async () => {
    fake = await FakeOpenAi.start({ apiKey: KEY, models: ["gpt-4o", "gpt-5-mini", "qwen3"] });
  });
  beforeEach(() => fake.reset());
  after(async () => fake.close());

  it("streams text deltas, asks for usage, and counts prompt, cached and completion tokens apart", async () => {
    fake.push({ text: "Hello there, how can I help?", chunkSize: 5, usage: { prompt_tokens: 1200, cached_tokens: 1000, completion_tokens: 9 } });
    const h = recorder();
    const result = await provider().call(gpt(), h);
    expect(h.deltas).to.deep.equal(["Hello", " ther", "e, ho", "w can", " I he", "lp?"]);
    expect(result).to.deep.include({ ok: true, text: "Hello there, how can I help?", toolUses: [], contextMax: 128_000 });
    expect(result.usage).to.deep.equal({ input: 200, cache_read: 1000, cache_write: 0, output: 9, reasoning: 0 });
    const body = fake.requests[0]!.body;
    expect(body).to.deep.include({ model: "gpt-4o", stream: true, stream_options: { include_usage: true }, max_completion_tokens: 8192 });
    expect(body.messages[0]).to.deep.equal({ role: "system", content: "You are a test agent." });
    expect(fake.requests[0]!.headers["authorization"]).to.equal(`Bearer ${KEY}`);
  });

  it("assembles tool calls whose arguments arrive in fragments, several at once, announcing each then its whole input", async () => {
    const input = { path: "/tmp/notes.txt", lines: [1, 2, 3], options: { label: 'naïve "quoted"' } };
    fake.push({
      text: "Let me look.",
      toolCalls: [
        { id: "call_a", name: "read_file", input },
        { id: "call_b", name: "list_tasks", arguments: "" },
      ],
      interleaved: true,
      chunkSize: 3,
    });
    const h = withToolFrames();
    const result = await provider().call(gpt({ tools: [{ name: "read_file", description: "Read", input_schema: { type: "object" } }] }), h);
    expect(result.ok, JSON.stringify(result)).to.equal(true);
    if (!result.ok) return;
    expect(result.toolUses).to.deep.equal([
      { id: "call_a", name: "read_file", input },
      { id: "call_b", name: "list_tasks", input: {} },
    ]);
    expect(h.tools).to.deep.equal([
      { id: "call_a", name: "read_file" },
      { id: "call_b", name: "list_tasks" },
      { id: "call_a", name: "read_file", input },
      { id: "call_b", name: "list_tasks", input: {} },
    ]);
    expect(fake.requests[0]!.body.tools).to.deep.equal([
      { type: "function", function: { name: "read_file", description: "Read", parameters: { type: "object" } } },
    ]);
  });

  it("gives a call without an id, or repeating one of the same answer, an id of its own", async () => {
    fake.push({ toolCalls: [{ name: "a" }, { id: "call_1", name: "b" }, { id: "call_1", name: "c" }] });
    const result = await provider().call(gpt(), recorder());
    if (!result.ok) throw new Error(result.error);
    const ids = result.toolUses.map((t) => t.id);
    expect(ids[0]).to.match(/^call_/);
    expect(ids[1]).to.equal("call_1");
    expect(ids[2]).to.match(/^call_/);
    expect(new Set(ids).size).to.equal(3);
  });

  it("sends tool uses as tool_calls and their results as tool messages, images as data URLs, documents as text", async () => {
    const image: Attachment = {
      filename: "a.png",
      mediaType: "image/png",
      sizeBytes: 3,
      source: { type: "data_url", dataUrl: "data:image/png;base64,AAAA" },
    } as Attachment;
    const note: Attachment = {
      filename: "n.txt",
      mediaType: "text/plain",
      sizeBytes: 5,
      source: { type: "data_url", dataUrl: "data:text/plain;base64,aGVsbG8=" },
    } as Attachment;
    const messages: ModelMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "attachment", attachment: image, ref: "evt_1/0" },
          { type: "attachment", attachment: note, ref: "evt_1/1" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hm", signature: "" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "call_9", name: "lookup", input: { q: 1 } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_9", content: "found", is_error: false },
          { type: "text", text: "and?" },
        ],
      },
    ];
    await provider().call(gpt({ messages, steers: ["be brief"] }), recorder());
    const sent = fake.requests[0]!.body.messages;
    expect(sent[1].content).to.deep.equal([
      { type: "text", text: "look" },
      { type: "text", text: "[attachment evt_1/0: a.png, image/png]" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      { type: "text", text: "[attachment evt_1/1: n.txt, text/plain]" },
      { type: "text", text: '<document filename="n.txt">\nhello\n</document>' },
    ]);
    expect(sent[2]).to.deep.equal({
      role: "assistant",
      content: "Checking.",
      tool_calls: [{ id: "call_9", type: "function", function: { name: "lookup", arguments: '{"q":1}' } }],
    });
    expect(sent[3]).to.deep.equal({ role: "tool", tool_call_id: "call_9", content: "found" });
    expect(sent[4]).to.deep.equal({ role: "user", content: [{ type: "text", text: "and?" }] });
    expect(sent[5].content).to.include("- be brief");
  });

  it("answers vision_analyze's image question with the image as a data URL and no tools", async () => {
    fake.push({ text: "A red dot." });
    const image = {
      filename: "dot.png",
      mediaType: "image/png",
      sizeBytes: 3,
      source: { type: "data_url", dataUrl: "data:image/png;base64,AAAA" },
    } as Attachment;
    const result = await askAboutImage(provider(), "gpt-4o", image, "What is it?", new AbortController().signal);
    expect(result).to.deep.include({ ok: true, text: "A red dot." });
    const body = fake.requests[0]!.body;
    expect(body).to.not.have.property("tools");
    expect(body.messages[1].content).to.deep.equal([
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      { type: "text", text: "What is it?" },
    ]);
  });

  it("turns reasoning deltas (reasoning_content or reasoning) into thinking, and takes the server's reasoning tokens", async () => {
    fake.push({ reasoning: "Think first.", text: "Answer.", usage: { reasoning_tokens: 40, completion_tokens: 50 } });
    fake.push({ reasoning: "Other field.", reasoningField: "reasoning", text: "Two." });
    const h = recorder();
    const a = await provider({ name: "local", baseURL: fake.url }).call(request({ model: "qwen3" }), h);
    expect(h.order).to.deep.equal(["thinking:Think first.", "text:Answer."]);
    expect(a.usage.reasoning).to.equal(40);
    expect(fake.requests[0]!.body).to.include({ max_tokens: 8192 }).and.not.have.property("max_completion_tokens");
    const h2 = recorder();
    await provider().call(gpt(), h2);
    expect(h2.thinking).to.deep.equal(["Other field."]);
  });

  it("retries a 429 after the Retry-After the server asked for", async () => {
    fake.push({ status: 429, retryAfter: 1, message: "Rate limit reached" }, { text: "ok" });
    const result = await provider().call(gpt(), recorder());
    expect(result.ok).to.equal(true);
    expect(fake.requests).to.have.length(2);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).to.be.at.least(1000);
  });

  it("a stream cut midway ends the call with an error, after the text it streamed, without a retry", async () => {
    fake.push({ text: "Half an ans", cut: true });
    const h = recorder();
    const error = expectFailure(await provider().call(gpt(), h));
    expect(error).to.equal("the openai API failed during the response: the response stream ended before a finish reason");
    expect(fake.requests).to.have.length(1);
  });

  it("a stream cut before any output is retried", async () => {
    fake.push({ cut: true }, { text: "whole" });
    const result = await provider().call(gpt(), recorder());
    expect(result).to.deep.include({ ok: true, text: "whole" });
    expect(fake.requests).to.have.length(2);
  });

  it("a content-filter finish, a refusal and a length cut end the call with a clear error", async () => {
    fake.push({ text: "Part", finishReason: "content_filter" }, { refusal: "I can't help with that." }, { text: "Long", finishReason: "length" });
    expect(expectFailure(await provider().call(gpt(), recorder()))).to.equal("the openai model's answer was stopped by the content filter");
    expect(expectFailure(await provider().call(gpt(), recorder()))).to.equal("the openai model refused: I can't help with that.");
    expect(expectFailure(await provider({ maxTokens: 10 }).call(gpt(), recorder()))).to.equal("the openai model's answer was cut off at its token limit (10)");
    expect(fake.requests).to.have.length(3);
  });

  it("an unknown model is the server's 404, said plainly and not retried", async () => {
    const error = expectFailure(await provider().call(request({ model: "gpt-nope" }), recorder()));
    expect(error).to.equal("the openai API refused the request: 404 model_not_found: The model `gpt-nope` does not exist");
    expect(fake.requests).to.have.length(1);
  });

  it("never repeats the key, even when the server echoes it", async () => {
    fake.push({ status: 400, message: `bad key ${KEY} given` });
    const error = expectFailure(await provider().call(gpt(), recorder()));
    expect(error).to.not.include(KEY);
    expect(error).to.include("[redacted]");
  });

  it("a missing key fails the call naming its variable; an endpoint without a key sends no Authorization", async () => {
    expect(expectFailure(await provider({ apiKey: undefined, baseURL: undefined }).call(gpt(), recorder()))).to.equal("OPENAI_API_KEY is not set");
    const open = await FakeOpenAi.start();
    try {
      const result = await new OpenAiProvider({ name: "local", apiKey: undefined, apiKeyEnv: undefined, baseURL: open.url }).call(
        request({ model: "m" }),
        recorder(),
      );
      expect(result.ok).to.equal(true);
      expect(open.requests[0]!.headers).to.not.have.property("authorization");
    } finally {
      await open.close();
    }
  });

  it("refuses a JSON answer to a streaming request at once", async () => {
    fake.push({ asJson: true, text: "x" });
    const error = expectFailure(await provider().call(gpt(), recorder()));
    expect(error).to.equal("the openai API answered a streaming request with content-type application/json, not text/event-stream");
    expect(fake.requests).to.have.length(1);
  });

  it("windows: OpenAI's table, an endpoint's configured one, else 128,000; prices only for openai/ models", async () => {
    expect((await provider().call(request({ model: "gpt-5-mini" }), recorder())).contextMax).to.equal(400_000);
    expect((await provider({ name: "local", contextWindow: 32_768 }).call(request({ model: "qwen3" }), recorder())).contextMax).to.equal(32_768);
    expect((await provider({ name: "local" }).call(request({ model: "qwen3" }), recorder())).contextMax).to.equal(128_000);
    const tokens = { input: 1_000_000, output: 1_000_000, cache_read: 1_000_000, cache_write: 0, reasoning: 0 };
    expect(costOf("openai/gpt-4o", tokens)).to.equal(2.5 + 10 + 1.25);
    expect(costOf("openai/gpt-4o-2024-08-06", tokens)).to.equal(2.5 + 10 + 1.25);
    expect(costOf("openai/gpt-4o-mini", tokens)).to.equal(0.15 + 0.6 + 0.075);
    expect(costOf("local/gpt-4o", tokens)).to.equal(undefined);
    expect(costOf("openai/toString", tokens)).to.equal(undefined);
  });
});
