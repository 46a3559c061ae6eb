/** AutomationPath: the path parameters of an automation's routes. */
export const automationPathSchema = {
  $id: "automation-path",
  title: "AutomationPath",
  type: "object",
  required: ["agentId", "subjectId", "automationId"],
  additionalProperties: false,
  properties: {
    agentId: { type: "string", minLength: 1, maxLength: 100 },
    subjectId: { $ref: "subject-id" },
    automationId: { type: "string", minLength: 1, maxLength: 100 },
  },
} as const;
