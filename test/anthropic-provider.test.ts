import { expect } from "chai";
import type { Attachment } from "../src/sessions/domain/events.js";
import { AnthropicProvider, type AnthropicOptions } from "../src/providers/anthropic.js";
import { costOf } from "../src/providers/pricing.js";
import type { ModelMessage, ToolSpec } from "../src/providers/provider.js";
import { usageSnapshot } from "../src/providers/usage.js";
import { refundsDocx, workbook } from "./support/documents.js";
import { FakeAnthropic } from "./support/fake-anthropic.js";
import { expectFailure, KEY, recorder, request, zero } from "./anthropic-provider-cases.js";

function dataUrl(mediaType: string, content: string | Buffer): string {
  return `data:${mediaType};base64,${Buffer.from(content).toString("base64")}`;
}

describe("the anthropic provider against a fake Messages API", () => {
  let fake: FakeAnthropic;
  const provider = (over: Partial<AnthropicOptions> = {}) => new AnthropicProvider({ apiKey: KEY, baseURL: fake.url, retryBaseMs: 5, ...over });

  before(async () => {
    fake = await FakeAnthropic.start({ apiKey: KEY });
  });
  beforeEach(() => fake.reset());
  after(async () => fake.close());

  describe("streaming", () => {
    it("passes text deltas on in order and returns the whole text", async () => {
      fake.push({ text: "Hello there, how can I help?", chunkSize: 5 });
      const h = recorder();
      const result = await provider().call(request(), h);
      expect(h.deltas).to.deep.equal(["Hello", " ther", "e, ho", "w can", " I he", "lp?"]);
      expect(result).to.deep.include({ ok: true, text: "Hello there, how can I help?", toolUses: [], contextMax: 200_000 });
      expect(fake.requests).to.have.length(1);
    });

    it("surfaces a thinking block once, whole, when it ends, and estimates its tokens as reasoning", async () => {
      const thought = "The user greets me; I should greet back.";
      fake.push({ thinking: thought, text: "Hi!", chunkSize: 4 });
      const h = recorder();
      const result = await provider().call(request(), h);
      expect(h.thinking).to.deep.equal([thought]);
      expect(h.order[0]).to.equal(`thinking:${thought}`);
      expect(h.deltas.join("")).to.equal("Hi!");
      expect(result.ok).to.equal(true);
      expect(result.usage.reasoning).to.equal(Math.ceil(thought.length / 4));
      if (result.ok) expect(result.text).to.equal("Hi!");
    });

    it("assembles tool uses from several input_json_delta chunks; an empty input is {}", async () => {
      const input = { path: "/tmp/notes.txt", lines: [1, 2, 3], options: { follow: true, label: 'naïve "quoted"' } };
      fake.push({
        text: "Let me look.",
        toolUses: [
          { id: "toolu_1", name: "read_file", input },
          { id: "toolu_2", name: "list_tasks" },
        ],
        chunkSize: 3,
      });
      const result = await provider().call(request(), recorder());
      expect(result.ok).to.equal(true);
      if (!result.ok) return;
      expect(result.text).to.equal("Let me look.");
      expect(result.toolUses).to.deep.equal([
        { id: "toolu_1", name: "read_file", input },
        { id: "toolu_2", name: "list_tasks", input: {} },
      ]);
    });

    it("fails plainly when a tool's input is not valid JSON, and does not retry", async () => {
      fake.push({ toolUses: [{ id: "toolu_1", name: "terminal", rawJson: '{"command": "ls' }], stopReason: "max_tokens" });
      const error = expectFailure(await provider({ maxTokens: 100 }).call(request(), recorder()));
      expect(error).to.equal("the anthropic model's input for tool terminal was cut off at max_tokens (100)");
      expect(fake.requests).to.have.length(1);
    });

    it("answers with an echo of the last user text when nothing is queued", async () => {
      const result = await provider().call(request({ messages: [{ role: "user", content: [{ type: "text", text: "ping me" }] }] }), recorder());
      expect(result).to.deep.include({ ok: true, text: "echo: ping me" });
    });
  });

  describe("the request", () => {
    const tools: ToolSpec[] = [
      { name: "read_file", description: "Reads a file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
      { name: "terminal", description: "Runs a command", input_schema: { type: "object", properties: { command: { type: "string" } } } },
    ];

    it("sends the model without its prefix, max_tokens, the key, the system prompt and tools with cache breakpoints", async () => {
      await provider({ maxTokens: 1234 }).call(request({ model: "anthropic/claude-sonnet-4-6", tools }), recorder());
      const [req] = fake.requests;
      expect(req!.method).to.equal("POST");
      expect(req!.path).to.equal("/v1/messages");
      // This SDK version sends the key as a bearer token rather than `x-api-key`.
      expect(req!.headers["authorization"] ?? `x-api-key ${req!.headers["x-api-key"]}`).to.be.oneOf([`Bearer ${KEY}`, `x-api-key ${KEY}`]);
      expect(req!.headers).to.have.property("anthropic-version");
      const body = req!.body;
      expect(body.model).to.equal("claude-sonnet-4-6");
      expect(body.max_tokens).to.equal(1234);
      expect(body.stream).to.equal(true);
      expect(body.system).to.deep.equal([{ type: "text", text: "You are a test agent.", cache_control: { type: "ephemeral" } }]);
      expect(body.tools).to.deep.equal([
        { name: "read_file", description: "Reads a file", input_schema: tools[0]!.input_schema },
        { name: "terminal", description: "Runs a command", input_schema: tools[1]!.input_schema, cache_control: { type: "ephemeral" } },
      ]);
    });

    it("sends no tools and no system when there are none", async () => {
      await provider().call(request({ system: "", tools: [] }), recorder());
      expect(fake.requests[0]!.body).to.not.have.property("tools");
      expect(fake.requests[0]!.body).to.not.have.property("system");
    });

    it("maps attachments: images and PDFs as base64, text files and the text of DOCX and XLSX as plain text documents with a title, others as a note", async () => {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const file = (filename: string, mediaType: Attachment["mediaType"], content: string | Buffer) => ({
        type: "attachment" as const,
        attachment: { type: "file" as const, filename, mediaType, source: { type: "data_url" as const, dataUrl: dataUrl(mediaType, content) } },
      });
      const messages: ModelMessage[] = [
        {
          role: "user",
          content: [
            { type: "text", text: "Look at these" },
            file("shot.png", "image/png", png),
            file("photo.jpg", "image/jpeg", "jpeg-bytes"),
            file("anim.gif", "image/gif", "gif-bytes"),
            file("pic.webp", "image/webp", "webp-bytes"),
            file("paper.pdf", "application/pdf", "%PDF-1.7 fake"),
            file("notes.md", "text/markdown", "# Notes\nCafé ☕"),
            file("readme.txt", "text/plain", "plain text"),
            file("table.csv", "text/csv", "a,b\n1,2"),
            file("other.csv", "application/csv", "c,d"),
            file("old.md", "text/x-markdown", "old markdown"),
            file("report.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", refundsDocx()),
            file("sheet.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", await workbook({ S: [["a", 1]] })),
            file("image.bmp", "image/bmp", "BM"),
          ],
        },
      ];
      await provider().call(request({ messages }), recorder());
      const content = fake.requests[0]!.body.messages[0].content;
      const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
      const doc = (title: string, data: string) => ({ type: "document", title, source: { type: "text", media_type: "text/plain", data } });
      const note = (name: string, type: string) => ({ type: "text", text: `The attachment ${name} (${type}) cannot be read by this model.` });
      expect(content).to.deep.equal([
        { type: "text", text: "Look at these" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: b64(png) } },
        { type: "image", source: { type: "base64", media_type: "image/jpeg", data: b64("jpeg-bytes") } },
        { type: "image", source: { type: "base64", media_type: "image/gif", data: b64("gif-bytes") } },
        { type: "image", source: { type: "base64", media_type: "image/webp", data: b64("webp-bytes") } },
        { type: "document", source: { type: "base64", media_type: "application/pdf", data: b64("%PDF-1.7 fake") } },
        doc("notes.md", "# Notes\nCafé ☕"),
        doc("readme.txt", "plain text"),
        doc("table.csv", "a,b\n1,2"),
        doc("other.csv", "c,d"),
        doc("old.md", "old markdown"),
        doc("report.docx", "Refund policy\n\nRefunds within 30 days."),
        doc("sheet.xlsx", "## Sheet: S\na,1"),
        { ...note("image.bmp", "image/bmp"), cache_control: { type: "ephemeral" } },
      ]);
    });

    it("maps tool_use and tool_result blocks, merges consecutive messages of one role, and appends steers", async () => {
      const messages: ModelMessage[] = [
        { role: "user", content: [{ type: "text", text: "first" }] },
        { role: "user", content: [{ type: "text", text: "second" }] },
        { role: "assistant", content: [{ type: "text", text: "Reading." }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.txt" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "file body", is_error: false }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "terminal", input: { command: "rm -rf /" } }] },
        { role: "user", content: [{ type: "text", text: "" }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "denied: not allowed", is_error: true }] },
      ];
      await provider().call(request({ messages, steers: ["be brief", "use French"] }), recorder());
      expect(fake.requests[0]!.body.messages).to.deep.equal([
        {
          role: "user",
          content: [
            { type: "text", text: "first" },
            { type: "text", text: "second" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.txt" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "file body", is_error: false }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "terminal", input: { command: "rm -rf /" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_2", content: "denied: not allowed", is_error: true, cache_control: { type: "ephemeral" } },
            { type: "text", text: "Guidance from the user since your last step:\n- be brief\n- use French" },
          ],
        },
      ]);
    });

    it("puts tool results before text in a merged user message, as the API requires", async () => {
      const messages: ModelMessage[] = [
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: {} }] },
        { role: "user", content: [{ type: "text", text: "also this" }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok", is_error: false }] },
      ];
      await provider().call(request({ messages }), recorder());
      const last = fake.requests[0]!.body.messages[1];
      expect(last.content.map((b: any) => b.type)).to.deep.equal(["tool_result", "text"]);
    });
  });

  describe("usage and cost", () => {
    it("maps input, output and cache tokens from message_start and message_delta", async () => {
      fake.push({ text: "cached answer", usage: { input_tokens: 12, output_tokens: 34, cache_creation_input_tokens: 2048, cache_read_input_tokens: 4096 } });
      const result = await provider().call(request(), recorder());
      expect(result.usage).to.deep.equal({ input: 12, output: 34, cache_write: 2048, cache_read: 4096, reasoning: 0 });
      expect(result.contextMax).to.equal(200_000);
    });

    it("prices known models and leaves unknown ones unpriced", () => {
      const tokens = { input: 1_000_000, output: 1_000_000, cache_read: 1_000_000, cache_write: 1_000_000, reasoning: 0 };
      expect(costOf("anthropic/claude-sonnet-4-6", tokens)).to.equal(3 + 15 + 0.3 + 3.75);
      expect(costOf("anthropic/claude-haiku-4-5", { ...tokens, output: 0, cache_read: 0, cache_write: 0 })).to.equal(1);
      expect(costOf("anthropic/claude-opus-4-6", { ...tokens, cache_read: 0, cache_write: 0 })).to.equal(30);
      expect(costOf("anthropic/claude-opus-4-1", { ...tokens, cache_read: 0, cache_write: 0 })).to.equal(90);
      expect(costOf("gpt-4o", tokens)).to.equal(undefined);
    });

    it("usageSnapshot: totals, context of the last call, cost and its status", () => {
      const tokens = { input: 1000, output: 500, cache_read: 20_000, cache_write: 3000, reasoning: 40 };
      const u = usageSnapshot("anthropic/claude-sonnet-4-6", tokens, 3, 200_000, 1234, {
        lastCall: { input: 200, output: 300, cache_read: 19_000, cache_write: 500, reasoning: 0 },
      });
      expect(u).to.deep.equal({
        model: "anthropic/claude-sonnet-4-6",
        input: 1000,
        output: 500,
        cache_read: 20_000,
        cache_write: 3000,
        reasoning: 40,
        total: 24_500,
        calls: 3,
        context_used: 20_000,
        context_max: 200_000,
        context_percent: 10,
        cost_usd: costOf("anthropic/claude-sonnet-4-6", tokens),
        cost_status: "estimated",
        last_turn_latency_ms: 1234,
        latency_ms: 1234,
      });
      expect(u.cost_usd).to.equal((1000 * 3 + 500 * 15 + 20_000 * 0.3 + 3000 * 3.75) / 1_000_000);

      const unknown = usageSnapshot("anthropic/some-future-model", tokens, 1, 200_000, 10);
      expect(unknown).to.not.have.property("cost_usd");
      expect(unknown.cost_status).to.equal("unknown");
      expect(unknown.context_used).to.equal(24_500);
      expect(unknown.context_percent).to.equal(12);

      const mock = usageSnapshot("mock/echo", tokens, 1, 0, 5, { included: true });
      expect(mock).to.deep.include({ cost_usd: 0, cost_status: "included", context_percent: 0, context_max: 0 });
      expect(usageSnapshot("anthropic/claude-haiku-4-5", zero(), 0, 200_000, 0)).to.deep.include({ total: 0, cost_usd: 0, cost_status: "estimated" });
    });
  });
});
