/**
 * JSON Schema validation shared by the HTTP layer (bodies, queries, paths) and the built-in tools
 * (their inputs): one Ajv set-up, and one way of turning its errors into `path: constraint` entries
 * that never contain a submitted value.
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addErrorsImport from "ajv-errors";
import addFormatsImport from "ajv-formats";

const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;
const addErrors = addErrorsImport as unknown as (ajv: Ajv2020) => Ajv2020;

export type JsonSchema = Record<string, unknown>;

/** Object keys the caller chooses freely; their names are data, so messages do not print them. */
const FREE_FORM_PARENTS = new Set(["metadata", "properties"]);

/**
 * `x-unique-by: [properties]`: no two items of an array share the values of these properties (a
 * collection's identity). Each repeat is reported at its identity's last property the item has.
 */
function uniqueBy(props: string[], data: unknown, _schema?: unknown, ctx?: { instancePath: string }): boolean {
  const seen = new Set<string>();
  const errors: Partial<ErrorObject>[] = [];
  (Array.isArray(data) ? data : []).forEach((item: unknown, i) => {
    if (!item || typeof item !== "object") return;
    const fields = item as Record<string, unknown>;
    const key = JSON.stringify(props.map((p) => fields[p]));
    if (seen.has(key)) {
      const at = [...props].reverse().find((p) => fields[p] !== undefined) ?? props[0];
      errors.push({ instancePath: `${ctx?.instancePath ?? ""}/${i}/${at}`, keyword: "x-unique-by", message: "must be unique", params: {} });
    }
    seen.add(key);
  });
  (uniqueBy as { errors?: Partial<ErrorObject>[] }).errors = errors;
  return errors.length === 0;
}

export function newAjv(forParameters: boolean, schemas: readonly JsonSchema[]): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    discriminator: true,
    verbose: true, // gives parentSchema for messages; `data` is never read.
    useDefaults: forParameters,
    allowUnionTypes: true,
  });
  addFormats(ajv);
  addErrors(ajv);
  ajv.addKeyword({ keyword: "x-unique-by", type: "array", schemaType: "array", errors: true, validate: uniqueBy });
  for (const s of schemas) ajv.addSchema(s);
  return ajv;
}

function renderPath(instancePath: string, root: string): string {
  if (instancePath === "") return root;
  const segments = instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  let out = "";
  segments.forEach((seg, i) => {
    const parent = i > 0 ? segments[i - 1] : undefined;
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else if (parent !== undefined && FREE_FORM_PARENTS.has(parent)) out += "[*]";
    else out += (out ? "." : "") + seg;
  });
  return out;
}

/** A submitted property name is printed only when it reads like a field name, never like a token. */
export function safePropertyName(name: string): boolean {
  return /^[A-Za-z][A-Za-z_]{0,31}$/.test(name);
}

function describeBranches(schema: unknown): string {
  const branches = (schema as { anyOf?: JsonSchema[] }).anyOf ?? [];
  return branches.map((b) => (b.maxLength !== undefined ? `${String(b.type)} (at most ${String(b.maxLength)} characters)` : String(b.type))).join(", ");
}

function constraint(err: ErrorObject, ajv: Ajv2020): string {
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case "type":
      return `must be ${String(p.type).replace(/,/g, " or ")}`;
    case "required":
      return "is required";
    case "additionalProperties":
    case "false schema": // a property one branch of an if/then/else forbids
      return "is not allowed";
    case "minLength":
      return p.limit === 1 ? "must not be empty" : `must be at least ${String(p.limit)} characters`;
    case "maxLength":
      return `must be at most ${String(p.limit)} characters`;
    case "minimum":
      return `must be >= ${String(p.limit)}`;
    case "maximum":
      return `must be <= ${String(p.limit)}`;
    case "minItems":
      return `must have at least ${String(p.limit)} items`;
    case "maxItems":
      return `must have at most ${String(p.limit)} items`;
    case "minProperties":
      return `must have at least ${String(p.limit)} ${p.limit === 1 ? "property" : "properties"}`;
    case "maxProperties":
      return `must have at most ${String(p.limit)} properties`;
    case "enum":
      return `must be one of: ${(p.allowedValues as unknown[]).map(String).join(", ")}`;
    case "const":
      return `must be ${String(p.allowedValue)}`;
    case "pattern":
      return `must match the pattern ${String(p.pattern)}`;
    case "format":
      return `must be a valid ${String(p.format)}`;
    case "propertyNames": {
      const names = (err.parentSchema as { propertyNames?: { pattern?: string; maxLength?: number } }).propertyNames;
      return names?.pattern
        ? `has a property name that does not match the pattern ${names.pattern}`
        : `has a property name that is empty or longer than ${names?.maxLength ?? 64} characters`;
    }
    case "anyOf":
      return `must be one of: ${describeBranches(err.parentSchema)}`;
    case "discriminator": {
      type Branch = { $ref?: string; properties?: Record<string, { const?: string }> };
      const tag = String(p.tag);
      const tags = ((err.parentSchema as { oneOf?: Branch[] }).oneOf ?? [])
        .map((b) => (b.$ref ? (ajv.getSchema(b.$ref)?.schema as Branch | undefined) : b))
        .map((s) => s?.properties?.[tag]?.const)
        .filter((t): t is string => typeof t === "string");
      return `must be one of: ${tags.join(", ")}`;
    }
    case "uniqueItems":
      return "must not contain duplicate items";
    default:
      return err.message ?? "is invalid";
  }
}

/** Turns Ajv errors into `path: constraint` entries, dropping the noise of failed union branches. */
export function formatErrors(errors: ErrorObject[], root: string, ajv: Ajv2020): string[] {
  const unions = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "propertyNames").map((e) => e.schemaPath);
  const entries = new Set<string>();
  for (const err of errors) {
    // "must match then schema" says nothing the failed branch's own errors do not.
    if (err.keyword === "if") continue;
    if (unions.some((u) => err.schemaPath !== u && err.schemaPath.startsWith(u + "/"))) continue;
    const p = err.params as Record<string, unknown>;
    let path = renderPath(err.instancePath, root);
    if (err.keyword === "required") {
      path = err.instancePath === "" ? String(p.missingProperty) : `${path}.${String(p.missingProperty)}`;
    } else if (err.keyword === "additionalProperties") {
      const name = String(p.additionalProperty);
      if (!safePropertyName(name)) {
        entries.add(`${path}: must not have unknown properties`);
        continue;
      }
      path = err.instancePath === "" ? name : `${path}.${name}`;
    } else if (err.keyword === "discriminator") {
      path = err.instancePath === "" ? String(p.tag) : `${path}.${String(p.tag)}`;
    }
    entries.add(`${path}: ${constraint(err, ajv)}`);
  }
  return [...entries];
}
