/** The model providers every deployment of this service runs: the `<provider>` part of a `modelName`, beside the configured endpoints. */
export const MODEL_PROVIDERS = ["anthropic", "mock", "openai"] as const;

const DESCRIPTION = "<provider>/<model>; the provider is one of";

/**
 * ModelName: `<provider>/<model>`. This document lists the built-in providers; a deployment's validator
 * lists its own (`modelNameSchemaFor`), the built-in ones and the OpenAI-compatible endpoints it configures.
 */
export const modelNameSchema = {
  $id: "model-name",
  title: "ModelName",
  description: `${DESCRIPTION}: ${MODEL_PROVIDERS.join(", ")}, or an OpenAI-compatible endpoint the deployment configures (MODEL_ENDPOINTS).`,
  type: "string",
  maxLength: 200,
  pattern: "^[a-z][a-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._:@/-]*$",
  allOf: [{ pattern: `^(${MODEL_PROVIDERS.join("|")})/`, errorMessage: `provider must be one of: ${MODEL_PROVIDERS.join(", ")}` }],
} as const;

/** The same schema accepting exactly `providers` (names of lowercase letters, digits, `_` and `-`, as configuration checks). */
export function modelNameSchemaFor(providers: readonly string[]): Record<string, unknown> {
  return {
    ...modelNameSchema,
    description: `${DESCRIPTION}: ${providers.join(", ")}.`,
    allOf: [{ pattern: `^(${providers.join("|")})/`, errorMessage: `provider must be one of: ${providers.join(", ")}` }],
  };
}
