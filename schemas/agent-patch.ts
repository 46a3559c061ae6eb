import { agentCreateSchema } from "./agent-create.js";

/** The configuration fields of a version, as the create body defines them (rate limits are not versioned). */
const { rateLimits: _, ...configuration } = agentCreateSchema.properties;

/** AgentPatch: Partial update: collections are upserted by identity; omitted configuration is kept. */
export const agentPatchSchema = {
  $id: "agent-patch",
  title: "AgentPatch",
  description: "Partial update: collections are upserted by identity; omitted configuration is kept.",
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  // Stated here, not only in the service, so the document says it: a patch that changes nothing is invalid.
  not: { properties: { expectedVersion: true }, required: ["expectedVersion"], maxProperties: 1 },
  errorMessage: { not: "must contain at least one field other than expectedVersion" },
  properties: { ...configuration, expectedVersion: { type: "integer", minimum: 1 } },
} as const;
