/** Metadata: String-keyed values for the caller's tracking: strings, numbers, booleans or null. */
export const metadataSchema = {
  $id: "metadata",
  title: "Metadata",
  description: "String-keyed values for the caller's tracking: strings, numbers, booleans or null.",
  type: "object",
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 64 },
  additionalProperties: { anyOf: [{ type: "string", maxLength: 512 }, { type: "number" }, { type: "boolean" }, { type: "null" }] },
} as const;
