/**
 * The OpenAPI 3.1 document of an app, assembled from its route declarations and `schemas/`: every
 * operation with its id, parameters, request body, success response and error responses, each with
 * its schema. Nothing in it is written twice.
 */
import { SCHEMAS } from "../../schemas/index.js";
import { IDEMPOTENCY_DESCRIPTION, IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_SCHEMA } from "../idempotency/index.js";
import { ACCEPTED_ENCODINGS } from "./request-body.js";
import { errorStatuses, type NamedSchema, type RouteSpec } from "./route.js";

type Json = Record<string, unknown>;
type AnySpec = RouteSpec<NamedSchema | undefined, NamedSchema | undefined, NamedSchema | undefined>;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Keywords of ours the document leaves out (validation messages). */
const PRIVATE_KEYWORDS = new Set(["$id", "errorMessage"]);

const byId = new Map<string, Json>(SCHEMAS.map((s) => [s.$id, s as unknown as Json]));

/**
 * A discriminator's `mapping` (Ajv refuses the keyword, OpenAPI tools want it): each tag value to the
 * component whose `properties.<tag>.const` it is.
 */
function withMapping(node: Json): Json {
  const discriminator = node.discriminator as { propertyName: string } | undefined;
  const branches = node.oneOf as { $ref?: string }[] | undefined;
  if (!discriminator || !branches) return node;
  const mapping: Record<string, string> = {};
  for (const { $ref } of branches) {
    const tag = $ref && (byId.get($ref)?.properties as Record<string, { const?: string }> | undefined)?.[discriminator.propertyName]?.const;
    if ($ref && tag) mapping[tag] = ref($ref).$ref;
  }
  return { ...node, discriminator: { ...discriminator, mapping } };
}

/** Schemas name each other by `$id`; in the document they live under components. */
function forDocument(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forDocument);
  if (node && typeof node === "object") {
    const out: Json = {};
    for (const [k, v] of Object.entries(withMapping(node as Json))) {
      if (PRIVATE_KEYWORDS.has(k)) continue;
      out[k] = k === "$ref" && typeof v === "string" ? ref(v).$ref : forDocument(v);
    }
    return out;
  }
  return node;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request: `validation_error`, with one `path: constraint` entry per problem.",
  401: "Missing, invalid or revoked API key: `unauthorized`.",
  402: "The account's credits do not cover it: `insufficient_credits`.",
  403: "The API key lacks the scope the operation needs: `forbidden`.",
  422: "A skill could not be fetched or parsed (`invalid_skill`), a secret reference names no secret (`invalid_secret_ref`), or an Idempotency-Key was used for another request (`idempotency_error`).",
  404: "No such resource in the key's organization: `not_found`.",
  409: "The resource's state or version forbids it: `conflict`, `invalid_state`, `no_active_turn` or `budget_exceeded` (the session's spend budget is reached).",
  429: "Request ceiling, allowance or open streams exhausted: `rate_limited`; wait `Retry-After` seconds.",
  415: `A body in a \`Content-Encoding\` the service does not decode (it decodes ${ACCEPTED_ENCODINGS}): \`validation_error\`.`,
  431: "Request headers over the server's limit: `validation_error`.",
  500: "Unexpected failure: `server_error`.",
  502: "An upstream or runtime operation failed: `server_error` or `runtime_delete_failed`.",
  503: "A required service is unavailable, or the session too contended: `server_error`; retry with backoff.",
};

const header = (description: string) => ({ description, schema: { type: "string" } });
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": header("Points the window allows."),
  "RateLimit-Remaining": header("Points left in the window."),
  "RateLimit-Reset": header("Whole seconds until the window resets."),
};

function properties(schema: NamedSchema | undefined): [string, Json, boolean][] {
  if (!schema) return [];
  const s = schema as unknown as { properties?: Record<string, Json>; required?: readonly string[] };
  return Object.entries(s.properties ?? {}).map(([name, p]) => [name, p, (s.required ?? []).includes(name)]);
}

function parameters(spec: AnySpec): Json[] {
  const out: Json[] = (spec.headers ?? []).map((h) => ({
    name: h.name,
    in: "header",
    required: false,
    description: h.description,
    schema: { type: "string" },
  }));
  if (spec.idempotent)
    out.push({ name: IDEMPOTENCY_HEADER, in: "header", required: false, description: IDEMPOTENCY_DESCRIPTION, schema: IDEMPOTENCY_KEY_SCHEMA });
  for (const [name, schema] of properties(spec.params)) out.push({ name, in: "path", required: true, schema: forDocument(schema) });
  for (const [name, schema, required] of properties(spec.query)) {
    const { description, ...rest } = schema;
    out.push({ name, in: "query", required, ...(description ? { description } : {}), schema: forDocument(rest) });
  }
  return out;
}

const SSE_EVENT = {
  type: "object",
  required: ["event", "data"],
  properties: { event: { type: "string" }, id: { type: "string" }, data: { type: "string", contentMediaType: "application/json" } },
};

function responses(spec: AnySpec): Json {
  const success = spec.success;
  const out: Json = {};
  if ("stream" in success) {
    out[success.status] = {
      description: "Server-Sent Events: `event:` the type, `id:` an opaque cursor, `data:` an Event as JSON.",
      // OpenAPI 3.1 reads a stream's `schema` as one event's (its fields as an object), not the body's text.
      content: { "text/event-stream": { schema: SSE_EVENT } },
    };
  } else {
    const content = { "application/json": { schema: ref(success.schema.$id) } };
    const replayed = spec.idempotent
      ? { "Idempotent-Replayed": header("`true` when this is the kept answer of an earlier request with the same Idempotency-Key.") }
      : {};
    const headers = { ...(success.rateLimited ? RATE_LIMIT_HEADERS : {}), ...replayed };
    out[success.status] = { description: "Success.", ...(Object.keys(headers).length > 0 ? { headers } : {}), content };
    for (const status of success.also ?? []) out[status] = { description: "The same shape as the success.", content };
  }
  for (const status of errorStatuses(spec)) {
    out[status] = {
      description: STATUS_TEXT[status] ?? "Error.",
      ...(status === 429 ? { headers: { "Retry-After": header("Whole seconds to wait."), ...RATE_LIMIT_HEADERS } } : {}),
      ...(status === 503 ? { headers: { "Retry-After": header("Whole seconds to wait before retrying.") } } : {}),
      ...(status === 415 ? { headers: { "Accept-Encoding": header("The content codings a body may be sent in.") } } : {}),
      content: { "application/json": { schema: ref("error") } },
    };
  }
  return out;
}

/** The schemas the operations name, and those they name in turn: a document holds its own interface's alone. */
function reachable(roots: string[]): Json {
  const out: Json = {};
  const visit = (id: string) => {
    const schema = byId.get(id);
    if (!schema || id in out) return;
    out[id] = forDocument(schema);
    for (const m of JSON.stringify(schema).matchAll(/"\$ref":"([^"]+)"/g)) visit(m[1]!);
  };
  roots.forEach(visit);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** How a document's callers authenticate. */
export interface DocumentIdentity {
  title: string;
  securitySchemes: Json;
  security: Json[];
}

export const CORE_DOCUMENT: DocumentIdentity = {
  title: "Agent Sessions API",
  securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key" } },
  security: [{ apiKey: [] }],
};

export function buildOpenApi(specs: AnySpec[], identity: DocumentIdentity = CORE_DOCUMENT): Json {
  const named = specs.flatMap((s) =>
    [s.params, s.query, s.body, "schema" in s.success ? s.success.schema : undefined].filter((x): x is NamedSchema => !!x).map((x) => x.$id),
  );
  const schemas = reachable([...named, "error"]);
  const paths: Record<string, Json> = {};
  for (const spec of specs) {
    const op: Json = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: [spec.tag],
      parameters: parameters(spec),
      responses: responses(spec),
      ...(spec.open ? { security: [] } : {}),
    };
    if (spec.body) op.requestBody = { required: true, content: { "application/json": { schema: ref(spec.body.$id) } } };
    (paths[spec.path.replace(/[:*]([A-Za-z_]+)/g, "{$1}")] ??= {})[spec.method] = op;
  }
  return {
    openapi: "3.1.0",
    info: { title: identity.title, version: "1.0.0" },
    components: { schemas, securitySchemes: identity.securitySchemes },
    security: identity.security,
    paths,
  };
}
