/**
 * Built-in tool inputs checked against the JSON Schemas the model is shown (`builtin-tool-specs.ts`),
 * so the model is told exactly what was wrong (`input: urls: must have at most 5 items`), in the same
 * terms as a request body's validation. Every built-in tool's schema is exact; `clarify`, which no
 * tool runs, is checked when the turn decides its calls (`decideCalls`).
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { BUILTIN_SPECS, DELEGATION_INPUT } from "./domain/builtin-tool-specs.js";
import { isDelegationTool } from "./domain/toolsets.js";
import { formatErrors, newAjv } from "../schema-validation.js";

const ajv = newAjv(false, []);
const validators = new Map<string, ValidateFunction>(Object.entries(BUILTIN_SPECS).map(([name, spec]) => [name, ajv.compile(spec.input_schema)]));
const delegation = ajv.compile(DELEGATION_INPUT);

/** What is wrong with `input` for the built-in tool `name`, or null when it is valid (or `name` is no built-in tool). */
export function inputProblem(name: string, input: unknown): string | null {
  const validate = isDelegationTool(name) ? delegation : validators.get(name);
  if (!validate || validate(input)) return null;
  return `invalid input: ${formatErrors(validate.errors ?? [], "input", ajv).join("; ")}`;
}
