/** Chooses the provider from the `<provider>` part of `modelName`. */
import type { Config } from "../config.js";
import { AnthropicProvider } from "./anthropic.js";
import { MockProvider } from "./mock.js";
import { OpenAiProvider } from "./openai.js";
import { parseModelName } from "./domain/model-names.js";
import { unavailable } from "../errors.js";
import type { ModelProvider } from "./provider.js";

export class ProviderRegistry {
  private readonly providers: Map<string, ModelProvider>;

  constructor(
    config: Pick<Config, "anthropicApiKey" | "anthropicBaseUrl" | "anthropicRetryBaseMs" | "anthropicThinkingBudget" | "modelEndpoints" | "openaiRetryBaseMs">,
  ) {
    this.providers = new Map<string, ModelProvider>([
      ["mock", new MockProvider()],
      [
        "anthropic",
        new AnthropicProvider({
          apiKey: config.anthropicApiKey,
          baseURL: config.anthropicBaseUrl,
          retryBaseMs: config.anthropicRetryBaseMs,
          thinkingBudget: config.anthropicThinkingBudget,
        }),
      ],
      // `openai` and each endpoint of MODEL_ENDPOINTS: the same provider, each with its address and key.
      ...config.modelEndpoints.map(
        (e) =>
          [
            e.name,
            new OpenAiProvider({
              name: e.name,
              apiKey: e.apiKey,
              apiKeyEnv: e.apiKeyEnv,
              baseURL: e.baseUrl,
              contextWindow: e.contextWindow,
              retryBaseMs: config.openaiRetryBaseMs,
            }),
          ] as const,
      ),
    ]);
  }

  resolve(modelName: string): { provider: ModelProvider; model: string } {
    const { provider, model } = parseModelName(modelName);
    const found = this.providers.get(provider);
    if (!found) throw unavailable(`model provider ${provider} is not available in this deployment`);
    return { provider: found, model };
  }
}
