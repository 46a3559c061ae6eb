/**
 * Context windows of OpenAI's models, in tokens, from OpenAI's model pages (checked 2026-10); a model
 * not listed, and every model of a named endpoint without `contextWindow`, gets `DEFAULT_CONTEXT_WINDOW`.
 */

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Longest prefix first where one prefix starts another (`gpt-4.1` before `gpt-4`). */
const WINDOWS: { prefix: string; tokens: number }[] = [
  { prefix: "gpt-5", tokens: 400_000 },
  { prefix: "gpt-4.1", tokens: 1_047_576 },
  { prefix: "gpt-4o", tokens: 128_000 },
  { prefix: "gpt-4-turbo", tokens: 128_000 },
  { prefix: "gpt-3.5-turbo", tokens: 16_385 },
  { prefix: "o1", tokens: 200_000 },
  { prefix: "o3", tokens: 200_000 },
  { prefix: "o4-mini", tokens: 200_000 },
];

export function openAiContextWindow(model: string): number {
  return WINDOWS.find((w) => model.startsWith(w.prefix))?.tokens ?? DEFAULT_CONTEXT_WINDOW;
}
