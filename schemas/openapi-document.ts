/** OpenApiDocument: this document (OpenAPI 3.1). */
export const openapiDocumentSchema = {
  $id: "openapi-document",
  title: "OpenApiDocument",
  type: "object",
  required: ["openapi", "info", "paths"],
  properties: { openapi: { type: "string" }, info: { type: "object" }, paths: { type: "object" } },
} as const;
