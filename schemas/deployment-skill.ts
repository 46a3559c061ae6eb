/** DeploymentSkill: a skill given inline, fetched from a public URL, or read from a file uploaded to the deployment. */
import { WORKSPACE_PATH_PATTERN } from "./deployment-create.js";

const skillName = { type: "string", minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9._-]*$" } as const;

export const deploymentSkillSchema = {
  $id: "deployment-skill",
  title: "DeploymentSkill",
  description:
    "A skill: Markdown with YAML front matter (`name`, `description`), given inline, fetched from a public URL, or read from a file uploaded to the deployment.",
  type: "object",
  required: ["name", "source"],
  discriminator: { propertyName: "source" },
  oneOf: [
    {
      required: ["name", "source", "content"],
      additionalProperties: false,
      properties: { name: skillName, source: { const: "inline" }, content: { type: "string", minLength: 1, maxLength: 100000 } },
    },
    {
      required: ["name", "source", "url"],
      additionalProperties: false,
      properties: { name: skillName, source: { const: "url" }, url: { type: "string", format: "uri", pattern: "^https?://", maxLength: 2048 } },
    },
    {
      required: ["name", "source", "path"],
      additionalProperties: false,
      properties: { name: skillName, source: { const: "file" }, path: { type: "string", maxLength: 1024, pattern: WORKSPACE_PATH_PATTERN } },
    },
  ],
  properties: { name: skillName, source: { type: "string" } },
} as const;
