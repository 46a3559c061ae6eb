/** AutomationPatch: any subset of the create fields; `repeat: null` removes the limit, `timezone: null` reads a cron expression in UTC again. */
export const automationPatchSchema = {
  $id: "automation-patch",
  title: "AutomationPatch",
  type: "object",
  minProperties: 1,
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    prompt: { type: "string", minLength: 1, maxLength: 5000 },
    schedule: { type: "string", minLength: 1, maxLength: 200 },
    timezone: { type: ["string", "null"], minLength: 1, maxLength: 64 },
    skills: { type: "array", maxItems: 64, uniqueItems: true, items: { type: "string", minLength: 1, maxLength: 200 } },
    repeat: { type: ["integer", "null"], minimum: 1, maximum: 1000000 },
    enabled: { type: "boolean" },
  },
} as const;
