/** AutomationCreate: an agent prompt on a schedule, for one subject. */
export const automationCreateSchema = {
  $id: "automation-create",
  title: "AutomationCreate",
  type: "object",
  required: ["prompt", "schedule"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    prompt: { type: "string", minLength: 1, maxLength: 5000 },
    schedule: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description:
        "An ISO timestamp (one-time), a one-time duration such as 30m, a recurring interval such as every 2h, or a five-field cron expression. UTC unless timezone names a zone for a cron expression.",
    },
    timezone: {
      type: "string",
      minLength: 1,
      maxLength: 64,
      description: "An IANA time zone (e.g. Europe/Paris) in which a cron expression is read; default UTC.",
    },
    skills: { type: "array", maxItems: 64, uniqueItems: true, items: { type: "string", minLength: 1, maxLength: 200 } },
    repeat: { type: "integer", minimum: 1, maximum: 1000000 },
    enabled: { type: "boolean" },
  },
} as const;
