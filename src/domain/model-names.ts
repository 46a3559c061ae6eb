/** Model providers the service can run, keyed by the `<provider>` part of `modelName`. */

export const KNOWN_PROVIDERS = ["anthropic", "mock"] as const;
export type ProviderName = (typeof KNOWN_PROVIDERS)[number];

export function parseModelName(modelName: string): { provider: string; model: string } {
  const slash = modelName.indexOf("/");
  return { provider: modelName.slice(0, slash), model: modelName.slice(slash + 1) };
}

export function isKnownProvider(provider: string): provider is ProviderName {
  return (KNOWN_PROVIDERS as readonly string[]).includes(provider);
}
