/** Role */
export const roleSchema = {
  $id: "role",
  title: "Role",
  type: "object",
  required: ["name", "tools"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    description: { type: "string", maxLength: 2000 },
    tools: { $ref: "tools" },
  },
} as const;
