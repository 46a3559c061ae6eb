/**
 * Built-in tool inputs checked against the JSON Schemas the model is shown (`builtin-tool-specs.ts`),
 * so the model is told exactly what was wrong (`input: urls: must have at most 5 items`), in the same
 * terms as a request body's validation. Tools join as their schemas become exact; the others still
 * check their input by hand.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { BUILTIN_SPECS } from "../domain/builtin-tool-specs.js";
import { formatErrors, newAjv } from "../schema-validation.js";

const CHECKED = ["web_search", "web_extract", "search_files", "skills_list", "skill_view", "skill_manage", "vision_analyze", "terminal", "process"] as const;

const ajv = newAjv(false, []);
const validators = new Map<string, ValidateFunction>(CHECKED.map((name) => [name, ajv.compile(BUILTIN_SPECS[name]!.input_schema)]));

/** What is wrong with `input` for the tool `name`, or null when it is valid (or the tool checks its input itself). */
export function inputProblem(name: string, input: unknown): string | null {
  const validate = validators.get(name);
  if (!validate || validate(input)) return null;
  return `invalid input: ${formatErrors(validate.errors ?? [], "input", ajv).join("; ")}`;
}
