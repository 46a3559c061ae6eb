import { budgetLimitProperty } from "./session-create.js";

/** SessionUpdate: At least one field; metadata replaces the whole object. */
export const sessionUpdateSchema = {
  $id: "session-update",
  title: "SessionUpdate",
  description: "At least one field; metadata replaces the whole object.",
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    title: { type: "string", minLength: 1, maxLength: 200 },
    yoloMode: { type: "boolean" },
    metadata: { $ref: "metadata" },
    budget: budgetLimitProperty,
  },
} as const;
