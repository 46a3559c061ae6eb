/** Chooses the provider from the `<provider>` part of `modelName`. */
import type { Config } from "../config.js";
import { MockProvider } from "./mock.js";
import { parseModelName } from "./providers.js";
import { ProviderUnavailable, type ModelProvider } from "./provider.js";

export class ProviderRegistry {
  private readonly providers: Map<string, ModelProvider>;

  constructor(_config: Pick<Config, "anthropicApiKey" | "anthropicBaseUrl">) {
    this.providers = new Map<string, ModelProvider>([["mock", new MockProvider()]]);
  }

  resolve(modelName: string): { provider: ModelProvider; model: string } {
    const { provider, model } = parseModelName(modelName);
    const found = this.providers.get(provider);
    if (!found) throw new ProviderUnavailable(`model provider ${provider} is not available in this deployment`);
    return { provider: found, model };
  }
}
