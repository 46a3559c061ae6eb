/** AutomationRunList: a page of an automation's runs, newest first. */
export const automationRunListSchema = {
  $id: "automation-run-list",
  title: "AutomationRunList",
  type: "object",
  required: ["object", "data", "pagination"],
  additionalProperties: false,
  properties: { object: { const: "list" }, data: { type: "array", items: { $ref: "automation-run" } }, pagination: { $ref: "offset-pagination" } },
} as const;
