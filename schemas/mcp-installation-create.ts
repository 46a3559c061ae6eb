import { mcpServerSchema } from "./mcp-server.js";
import { toolMcpToolsetSchema } from "./tool-mcp-toolset.js";

/** The settings of the server's `mcp_toolset`, as the agent's tool schema defines them (its server is the connector). */
const { type: _type, mcpServerName: _server, ...toolsetSettings } = toolMcpToolsetSchema.properties;

const vaultId = { type: "string", minLength: 1, maxLength: 100 } as const;

/**
 * McpInstallationCreate: adds one MCP server and its toolset to an agent as a new version, and sets up
 * how the server authenticates. Only custom connectors exist (no catalog is defined). A retry with the
 * same `idempotencyKey` (scoped to the agent) returns the first answer; the same key with another
 * request is 409 conflict.
 */
export const mcpInstallationCreateSchema = {
  $id: "mcp-installation-create",
  title: "McpInstallationCreate",
  description:
    "Publishes a new agent version holding the server and its `mcp_toolset`. A retry with the same `idempotencyKey` returns the first answer; the same key with another request is 409 conflict. `authentication`: `none` (public server), `existing_vault` (a vault holding the server's credential, attached if it is not), `static_bearer` (stores a new bearer credential in `vaultId`, or in a new vault when it is absent).",
  type: "object",
  required: ["expectedAgentVersion", "idempotencyKey", "connector", "authentication"],
  additionalProperties: false,
  properties: {
    expectedAgentVersion: { type: "integer", minimum: 1, description: "The agent's current version; another is 409 conflict." },
    idempotencyKey: {
      type: "string",
      minLength: 1,
      maxLength: 255,
      pattern: "^[\\x21-\\x7E]+$",
      description: "Chosen by the client, unique per intended installation (a UUID, say); kept 24 hours.",
    },
    connector: {
      type: "object",
      required: ["type"],
      properties: { type: { type: "string" } },
      discriminator: { propertyName: "type" },
      oneOf: [
        {
          type: "object",
          description: "A server at an address of the caller's choosing.",
          required: ["type", "name", "url"],
          additionalProperties: false,
          properties: { type: { const: "custom" }, name: mcpServerSchema.properties.name, url: { $ref: "server-url" } },
        },
      ],
    },
    authentication: {
      type: "object",
      required: ["type"],
      properties: { type: { type: "string" } },
      discriminator: { propertyName: "type" },
      oneOf: [
        { type: "object", required: ["type"], additionalProperties: false, properties: { type: { const: "none" } } },
        { type: "object", required: ["type", "vaultId"], additionalProperties: false, properties: { type: { const: "existing_vault" }, vaultId } },
        {
          type: "object",
          required: ["type", "token"],
          additionalProperties: false,
          properties: { type: { const: "static_bearer" }, token: { $ref: "secret-value" }, vaultId },
        },
      ],
    },
    toolset: {
      type: "object",
      description: "The server's `mcp_toolset` settings; omitted ones take the toolset's defaults (enabled, `always_ask`).",
      additionalProperties: false,
      properties: toolsetSettings,
    },
  },
} as const;
