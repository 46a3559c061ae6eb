/** The anthropic provider against a fake Messages API: errors, retries and abort. */
import { expect } from "chai";
import { AnthropicProvider, type AnthropicOptions } from "../src/providers/anthropic.js";
import type { StreamHandlers } from "../src/providers/provider.js";
import { isAbort } from "../src/providers/provider.js";
import { FakeAnthropic } from "./support/fake-anthropic.js";
import { expectFailure, KEY, recorder, request, zero } from "./anthropic-provider-cases.js";

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("the anthropic provider against a fake Messages API", () => {
  let fake: FakeAnthropic;
  const provider = (over: Partial<AnthropicOptions> = {}) => new AnthropicProvider({ apiKey: KEY, baseURL: fake.url, retryBaseMs: 5, ...over });

  before(async () => {
    fake = await FakeAnthropic.start({ apiKey: KEY });
  });
  beforeEach(() => fake.reset());
  after(async () => fake.close());

  describe("errors and retries", () => {
    it("reports a JSON answer to a streaming request by its content type, and does not retry it", async () => {
      fake.push({ text: "as json", asJson: true }, { text: "never reached" });
      const error = expectFailure(await provider().call(request(), recorder()));
      expect(error).to.include("application/json").and.include("text/event-stream");
      expect(fake.requests).to.have.length(1);
    });

    it("retries 529 and then 429 (honouring retry-after) and succeeds on the third request", async () => {
      fake.push({ status: 529 }, { status: 429, retryAfter: 0 }, { text: "finally" });
      const h = recorder();
      const result = await provider().call(request(), h);
      expect(result).to.deep.include({ ok: true, text: "finally" });
      expect(fake.requests).to.have.length(3);
      expect(h.deltas.join("")).to.equal("finally");
    });

    it("gives up after maxAttempts on a persistent 500, naming the attempts and the status", async () => {
      fake.push({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { text: "never reached" });
      const error = expectFailure(await provider().call(request(), recorder()));
      expect(error).to.equal("the anthropic API failed after 4 attempts: 500 api_error: Internal server error");
      expect(fake.requests).to.have.length(4);
    });

    it("honours maxAttempts and reports an overloaded API", async () => {
      fake.push({ status: 529 }, { status: 529 }, { text: "never reached" });
      const error = expectFailure(await provider({ maxAttempts: 2 }).call(request(), recorder()));
      expect(error).to.equal("the anthropic API failed after 2 attempts: 529 overloaded_error: Overloaded");
      expect(fake.requests).to.have.length(2);
    });

    it("does not retry 400 or 401, and never puts the key in the message", async () => {
      fake.push({ status: 400, message: "messages: roles must alternate" });
      const bad = expectFailure(await provider().call(request(), recorder()));
      expect(bad).to.equal("the anthropic API refused the request: 400 invalid_request_error: messages: roles must alternate");
      expect(fake.requests).to.have.length(1);

      fake.reset();
      const wrong = new AnthropicProvider({ apiKey: "sk-ant-wrong-key-987654321", baseURL: fake.url, retryBaseMs: 5 });
      const denied = expectFailure(await wrong.call(request(), recorder()));
      expect(denied).to.equal("the anthropic API refused the request: 401 authentication_error: invalid x-api-key");
      expect(fake.requests).to.have.length(1);

      // Even an API that echoed the key back would not get it into the message.
      fake.reset();
      fake.push({ status: 401, message: `invalid x-api-key ${KEY}` });
      const echoed = expectFailure(await provider().call(request(), recorder()));
      expect(echoed).to.not.include(KEY);
      expect(echoed).to.match(/^the anthropic API refused the request: 401 authentication_error: invalid x-api-key/);
    });

    it("does not retry an error event that arrives after text was streamed", async () => {
      fake.push({ text: "partial answer", streamError: { type: "overloaded_error", message: "Overloaded" } }, { text: "never reached" });
      const h = recorder();
      const result = await provider().call(request(), h);
      expect(expectFailure(result)).to.equal("the anthropic API failed during the response: overloaded_error: Overloaded");
      expect(h.deltas.join("")).to.equal("partial answer");
      expect(fake.requests).to.have.length(1);
      expect(result.usage.input).to.be.greaterThan(0);
    });

    it("retries an error event that arrives before any output", async () => {
      fake.push({ streamError: { type: "overloaded_error", message: "Overloaded" } }, { text: "second try" });
      const h = recorder();
      const result = await provider().call(request(), h);
      expect(result).to.deep.include({ ok: true, text: "second try" });
      expect(h.deltas.join("")).to.equal("second try");
      expect(fake.requests).to.have.length(2);
    });

    it("does not retry a non-transient error event", async () => {
      fake.push({ streamError: { type: "invalid_request_error", message: "prompt is too long" } }, { text: "never reached" });
      const error = expectFailure(await provider().call(request(), recorder()));
      expect(error).to.equal("the anthropic API refused the request: invalid_request_error: prompt is too long");
      expect(fake.requests).to.have.length(1);
    });

    it("retries a stream that stalls (timeout) and one that ends before message_stop", async () => {
      fake.push({ stall: true }, { text: "cut", truncate: true }, { text: "whole" });
      const result = await provider({ timeoutMs: 300 }).call(request(), recorder());
      // "cut" was streamed before the stream broke off, so the second failure is final.
      expect(expectFailure(result)).to.equal("the anthropic API failed during the response: the response stream ended before message_stop");
      expect(fake.requests).to.have.length(2);
      expect(fake.requests[0]!.closedEarly).to.equal(true);

      fake.reset();
      fake.push({ stall: true }, { stall: true });
      const timedOut = expectFailure(await provider({ timeoutMs: 100, maxAttempts: 2 }).call(request(), recorder()));
      expect(timedOut).to.equal("the anthropic API failed after 2 attempts: timed out after 100 ms without a response");

      fake.reset();
      // A call being written is announced provisionally; that is no output, so the answer is still retried.
      fake.push({ toolUses: [{ id: "toolu_1", name: "read_file", input: { path: "x" } }], truncate: true }, { text: "whole" });
      const announced: string[] = [];
      const handlers = { ...recorder(), onToolUseStreaming: async (use: { id: string }) => void announced.push(use.id) };
      expect(await provider().call(request(), handlers)).to.deep.include({ ok: true, text: "whole" });
      expect(fake.requests).to.have.length(2);
      expect(announced[0]).to.equal("toolu_1");
    });

    it("retries connection errors and then reports them", async () => {
      const closed = await FakeAnthropic.start();
      const url = closed.url;
      await closed.close();
      const error = expectFailure(await new AnthropicProvider({ apiKey: KEY, baseURL: url, retryBaseMs: 1, maxAttempts: 3 }).call(request(), recorder()));
      expect(error).to.match(/^the anthropic API failed after 3 attempts: connection error: /);
      expect(error).to.not.include(KEY);
    });

    it("without an API key fails at once without calling anything", async () => {
      const p = new AnthropicProvider({ apiKey: undefined, baseURL: fake.url });
      const result = await p.call(request(), recorder());
      expect(result).to.deep.equal({ ok: false, error: "ANTHROPIC_API_KEY is not set", usage: zero(), contextMax: 200_000 });
      expect(new AnthropicProvider({ apiKey: "", baseURL: fake.url })).to.be.an.instanceOf(AnthropicProvider);
      expect(fake.requests).to.have.length(0);
    });

    it("lets an error thrown by a handler through unchanged", async () => {
      class LockLost extends Error {}
      fake.push({ text: "some text", chunkSize: 2 }, { text: "never reached" });
      const failing: StreamHandlers = {
        async onTextDelta() {
          throw new LockLost("fenced");
        },
        async onThinking() {},
      };
      let caught: unknown;
      await provider()
        .call(request(), failing)
        .catch((err: unknown) => (caught = err));
      expect(caught).to.be.an.instanceOf(LockLost);
      expect(fake.requests).to.have.length(1);
    });
  });

  describe("abort", () => {
    it("stops a slow stream at once and rejects with an AbortError", async () => {
      const text = "x".repeat(200);
      fake.push({ text, chunkSize: 1, delayMs: 50 });
      const abort = new AbortController();
      const h = recorder();
      const handlers: StreamHandlers = {
        async onTextDelta(t) {
          await h.onTextDelta(t);
          if (h.deltas.length === 3) abort.abort();
        },
        onThinking: h.onThinking,
      };
      let caught: unknown;
      await provider()
        .call(request({ signal: abort.signal }), handlers)
        .catch((err: unknown) => (caught = err));
      expect(isAbort(caught), String(caught)).to.equal(true);
      expect(h.deltas.length).to.be.lessThan(text.length);
      await until(() => fake.requests[0]!.closedEarly, "the server to see the connection close");
      expect(fake.requests).to.have.length(1);
    });

    it("rejects with an AbortError while waiting to retry, and before starting", async () => {
      fake.push({ status: 529, retryAfter: 20 }, { text: "never reached" });
      const abort = new AbortController();
      const pending = provider().call(request({ signal: abort.signal }), recorder());
      await until(() => fake.requests.length === 1, "the first request");
      abort.abort();
      let caught: unknown;
      await pending.catch((err: unknown) => (caught = err));
      expect(isAbort(caught), String(caught)).to.equal(true);
      expect(fake.requests).to.have.length(1);

      let early: unknown;
      await provider()
        .call(request({ signal: abort.signal }), recorder())
        .catch((err: unknown) => (early = err));
      expect(isAbort(early), String(early)).to.equal(true);
      expect(fake.requests).to.have.length(1);
    });
  });
});
