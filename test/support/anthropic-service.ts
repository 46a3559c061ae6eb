/**
 * The service with its `anthropic` provider aimed at the local fake Messages API. Call inside a
 * `describe`: it registers the hooks (start, reset the fake between tests, stop) and returns handles
 * that are filled in once `before` has run.
 */
import { FakeAnthropic } from "./fake-anthropic.js";
import { client, startServer, type Client, type TestServer } from "./server.js";

export const FAKE_ANTHROPIC_KEY = "sk-ant-test-key";

export interface AnthropicService {
  fake: FakeAnthropic;
  server: TestServer;
  api: Client;
  key: string;
}

export function useAnthropicService(extraEnv: Record<string, string> = {}): AnthropicService {
  const ctx = {} as AnthropicService;
  before(async () => {
    ctx.fake = await FakeAnthropic.start({ apiKey: FAKE_ANTHROPIC_KEY });
    ctx.server = await startServer({ ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY, ANTHROPIC_BASE_URL: ctx.fake.url, ANTHROPIC_RETRY_BASE_MS: "1", ...extraEnv });
    ctx.key = await ctx.server.newKey();
    ctx.api = client(ctx.server.url, ctx.key);
  });
  beforeEach(() => ctx.fake.reset());
  after(async () => {
    await ctx.server?.close();
    await ctx.fake?.close();
  });
  return ctx;
}
