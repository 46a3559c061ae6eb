/** A `modelName` is `<provider>/<model>`; which providers are accepted is the schema's (`schemas/model-name.ts`). */

export function parseModelName(modelName: string): { provider: string; model: string } {
  const slash = modelName.indexOf("/");
  return { provider: modelName.slice(0, slash), model: modelName.slice(slash + 1) };
}
