/** AutomationPatch: any subset of the create fields; `repeat: null` removes the limit, `timezone: null` reads a cron expression in UTC again. */
import { automationCreateSchema } from "./automation-create.js";

const fields = automationCreateSchema.properties;

export const automationPatchSchema = {
  $id: "automation-patch",
  title: "AutomationPatch",
  type: "object",
  minProperties: 1,
  additionalProperties: false,
  properties: {
    ...fields,
    timezone: { ...fields.timezone, type: ["string", "null"] },
    repeat: { ...fields.repeat, type: ["integer", "null"] },
  },
} as const;
