/** Chooses the provider from the `<provider>` part of `modelName`. */
import type { Config } from "../config.js";
import { AnthropicProvider } from "./anthropic.js";
import { MockProvider } from "./mock.js";
import { parseModelName } from "./domain/model-names.js";
import { unavailable } from "../errors.js";
import type { ModelProvider } from "./provider.js";

export class ProviderRegistry {
  private readonly providers: Map<string, ModelProvider>;

  constructor(config: Pick<Config, "anthropicApiKey" | "anthropicBaseUrl" | "anthropicRetryBaseMs" | "anthropicThinkingBudget">) {
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
    ]);
  }

  resolve(modelName: string): { provider: ModelProvider; model: string } {
    const { provider, model } = parseModelName(modelName);
    const found = this.providers.get(provider);
    if (!found) throw unavailable(`model provider ${provider} is not available in this deployment`);
    return { provider: found, model };
  }
}
