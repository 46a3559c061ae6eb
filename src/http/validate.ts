/**
 * JSON Schema validation. Every schema of `schemas/` is compiled once at start (a bad one stops it);
 * bodies are validated as sent, path and query parameters after a strict conversion from text by their
 * declared types (decimal integers and numbers only: no exponents, hex, padding or infinities) and with
 * defaults filled in. Messages are `path: constraint` entries joined by `; ` and never contain a
 * submitted value.
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { SCHEMAS } from "../../schemas/index.js";
import { modelNameSchemaFor } from "../../schemas/model-name.js";
import { validationError } from "../errors.js";
import { formatErrors, newAjv, safePropertyName, type JsonSchema } from "../schema-validation.js";

/** Decimal forms only: what a client writes, not what `Number()` happens to accept. */
const INTEGER_TEXT = /^-?(0|[1-9][0-9]{0,15})$/;
const NUMBER_TEXT = /^-?(0|[1-9][0-9]{0,15})(\.[0-9]{1,15})?$/;

export class Validator {
  private readonly bodies: Ajv2020;
  private readonly queries: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly byId: Map<string, JsonSchema>;

  constructor(readonly schemas: readonly JsonSchema[] = SCHEMAS) {
    this.byId = new Map(schemas.map((s) => [String(s.$id), s]));
    this.bodies = newAjv(false, schemas);
    this.queries = newAjv(true, schemas);
    for (const s of schemas) {
      const id = String(s.$id);
      this.compiled.set(`body:${id}`, this.bodies.getSchema(id)!);
      this.compiled.set(`query:${id}`, this.queries.getSchema(id)!);
    }
  }

  private check<T>(kind: "body" | "query", schemaId: string, value: unknown, root: string): T {
    const fn = this.compiled.get(`${kind}:${schemaId}`);
    if (!fn) throw new Error(`unknown schema ${schemaId}`);
    if (fn(value)) return value as T;
    const ajv = kind === "body" ? this.bodies : this.queries;
    throw validationError(formatErrors(fn.errors ?? [], root, ajv));
  }

  body<T>(schemaId: string, value: unknown): T {
    return this.check<T>("body", schemaId, value, "body");
  }

  /**
   * Validates a query (or path parameters): repeated parameters are refused, each value is converted
   * from text by its declared type, then the schema checks it and fills in defaults.
   */
  query<T>(schemaId: string, raw: Record<string, string | string[] | undefined>, root = "query"): T {
    const copy: Record<string, unknown> = {};
    const repeated: string[] = [];
    for (const [k, v] of Object.entries(raw)) {
      if (Array.isArray(v)) repeated.push(k);
      else if (v !== undefined) copy[k] = this.fromText(schemaId, k, v);
    }
    if (repeated.length > 0) {
      throw validationError(repeated.map((k) => `${safePropertyName(k) ? k : root}: must be given at most once`));
    }
    return this.check<T>("query", schemaId, copy, root);
  }

  /** A parameter's text as its declared type, or the text itself (which the schema then refuses). */
  private fromText(schemaId: string, name: string, text: string): unknown {
    const type = this.propertyType(schemaId, name);
    if (type === "integer" && INTEGER_TEXT.test(text)) return Number(text);
    if (type === "number" && NUMBER_TEXT.test(text)) return Number(text);
    if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
    return text;
  }

  private propertyType(schemaId: string, name: string): unknown {
    let property = (this.schema(schemaId)?.properties as Record<string, JsonSchema> | undefined)?.[name];
    if (property && typeof property.$ref === "string") property = { ...this.schema(property.$ref), ...property };
    return property?.type;
  }

  schema(id: string): JsonSchema | undefined {
    return this.byId.get(id);
  }
}

/** A validator whose model names take exactly `providers`: the built-in ones and the endpoints this deployment configures. */
export function validatorFor(providers: readonly string[]): Validator {
  return new Validator(SCHEMAS.map((s) => (s.$id === "model-name" ? modelNameSchemaFor(providers) : s)));
}
