/** `GET /v1/openapi.json`: the OpenAPI 3.1 document assembled from the declared routes and `schemas/`. */
import type Router from "@koa/router";
import { loadSchemaFiles } from "../validate.js";
import { declaredRoutes } from "../route.js";

type Json = Record<string, unknown>;

/** Schema files reference each other by file name; in the document they live under components. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === "object") {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === "$id") continue;
      out[k] = k === "$ref" && typeof v === "string" ? `#/components/schemas/${componentName(v)}` : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

function componentName(file: string): string {
  return file.replace(/\.json$/, "");
}

export function buildOpenApi(): Json {
  const schemas: Json = {};
  for (const s of loadSchemaFiles()) schemas[componentName(String(s.$id))] = rewriteRefs(s);
  const paths: Record<string, Json> = {};
  for (const r of declaredRoutes) {
    const path = r.path.replace(/:([A-Za-z]+)/g, "{$1}");
    const params = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const query = r.query ? (schemas[componentName(r.query)] as { properties?: Record<string, Json> }).properties ?? {} : {};
    for (const [name, schema] of Object.entries(query)) params.push({ name, in: "query", required: false, schema: schema as never });
    const op: Json = {
      summary: r.summary,
      tags: [r.tag],
      parameters: params,
      responses: {
        [String(r.status)]: r.stream ? { description: "Server-Sent Events", content: { "text/event-stream": {} } } : { description: "Success" },
        default: { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
      },
    };
    if (r.body) op.requestBody = { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${componentName(r.body)}` } } } };
    (paths[path] ??= {})[r.method] = op;
  }
  schemas.Error = {
    type: "object",
    required: ["error", "message"],
    properties: { error: { type: "string" }, message: { type: "string" } },
  };
  return {
    openapi: "3.1.0",
    info: { title: "Agent Sessions API", version: "1.0.0" },
    components: { schemas, securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key" } } },
    security: [{ apiKey: [] }],
    paths,
  };
}

export function openapiRoutes(router: Router): void {
  let document: Json | undefined;
  router.get("/v1/openapi.json", (ctx) => {
    document ??= buildOpenApi();
    ctx.body = document;
  });
}
