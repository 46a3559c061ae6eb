/** The model providers this service runs: the `<provider>` part of every accepted `modelName`. */
export const MODEL_PROVIDERS = ["anthropic", "mock"] as const;

/** ModelName: `<provider>/<model>`, the provider one of `MODEL_PROVIDERS`. */
export const modelNameSchema = {
  $id: "model-name",
  title: "ModelName",
  description: `<provider>/<model>; the provider is one of: ${MODEL_PROVIDERS.join(", ")}.`,
  type: "string",
  maxLength: 200,
  pattern: "^[a-z][a-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._:@/-]*$",
  allOf: [{ pattern: `^(${MODEL_PROVIDERS.join("|")})/`, errorMessage: `provider must be one of: ${MODEL_PROVIDERS.join(", ")}` }],
} as const;
