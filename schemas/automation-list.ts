/** AutomationList: a page of automations, newest first. */
export const automationListSchema = {
  $id: "automation-list",
  title: "AutomationList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "automation" } }, pagination: { $ref: "offset-pagination" } },
} as const;
