/**
 * What a tool answers about the agent's commands, with the deployment's secret values replaced by the
 * variable's name (`[secret $NAME]`): a command that prints one (`env`, a debug line) does not put it in
 * the events or the model's context. Best effort, for the value as given: an encoded or split value
 * passes. Values shorter than REDACTED_MIN are left, as replacing them would mangle ordinary output.
 */

export const REDACTED_MIN = 6;

/** A function that redacts `variables`' values in a text; the identity when there are none to redact. */
export function redactor(variables: Record<string, string>): (text: string) => string {
  const pairs = Object.entries(variables)
    .filter(([, value]) => value.length >= REDACTED_MIN)
    // Longest first: a value that contains another is replaced whole.
    .sort(([, a], [, b]) => b.length - a.length);
  if (pairs.length === 0) return (text) => text;
  return (text) => pairs.reduce((out, [name, value]) => out.replaceAll(value, `[secret $${name}]`), text);
}
