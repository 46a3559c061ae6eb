/** SubjectPath: the path parameters of an agent's routes for one subject. */
export const subjectPathSchema = {
  $id: "subject-path",
  title: "SubjectPath",
  type: "object",
  required: ["agentId", "subjectId"],
  additionalProperties: false,
  properties: { agentId: { type: "string", minLength: 1, maxLength: 100 }, subjectId: { $ref: "subject-id" } },
} as const;
