/** Skill */
export const skillSchema = {
  $id: "skill",
  title: "Skill",
  type: "object",
  required: ["name", "content"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    content: { type: "string", minLength: 1, maxLength: 100000 },
  },
} as const;
