/**
 * The service with its OpenAI-compatible providers aimed at local fakes: `openai/*` at one
 * (OPENAI_BASE_URL) and a named endpoint, `local/*`, at another (MODEL_ENDPOINTS). Call inside a
 * `describe`: it registers the hooks and returns handles filled in once `before` has run. Both keys are
 * suite secrets, so every response and log line is scanned for them.
 */
import { FakeOpenAi } from "./fake-openai.js";
import { secret } from "./secrets.js";
import { client, startServer, type Client, type TestServer } from "./server.js";

export interface OpenAiService {
  fake: FakeOpenAi;
  local: FakeOpenAi;
  server: TestServer;
  api: Client;
  key: string;
  openaiKey: string;
}

export function useOpenAiService(): OpenAiService {
  const ctx = {} as OpenAiService;
  before(async () => {
    ctx.openaiKey = secret();
    const localKey = secret();
    ctx.fake = await FakeOpenAi.start({ apiKey: ctx.openaiKey });
    ctx.local = await FakeOpenAi.start({ apiKey: localKey, models: ["qwen3"] });
    ctx.server = await startServer({
      OPENAI_API_KEY: ctx.openaiKey,
      OPENAI_BASE_URL: ctx.fake.url,
      OPENAI_RETRY_BASE_MS: "1",
      MODEL_ENDPOINTS: JSON.stringify({ local: { baseUrl: ctx.local.url, apiKeyEnv: "TEST_LOCAL_KEY", contextWindow: 32_768 } }),
      TEST_LOCAL_KEY: localKey,
    });
    ctx.key = await ctx.server.newKey();
    ctx.api = client(ctx.server.url, ctx.key);
  });
  beforeEach(() => {
    ctx.fake.reset();
    ctx.local.reset();
  });
  after(async () => {
    await ctx.server?.close();
    await ctx.fake?.close();
    await ctx.local?.close();
  });
  return ctx;
}
