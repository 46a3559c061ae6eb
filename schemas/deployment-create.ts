/**
 * DeploymentCreate: the body of POST /v1/deployments; also the patterns and list fields the update body
 * shares. Wire names are snake_case, as the deployments document writes them.
 */

/** An environment variable name a secret is injected as. */
export const ENV_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]{0,127}$";
/** A secret reference: `sec_<id>`. */
export const SECRET_REF_PATTERN = "^sec_[0-9a-z]{1,64}$";
/** A workspace-relative path of an uploaded file: no `..`, no leading slash, no empty parts. */
export const WORKSPACE_PATH_PATTERN = "^(?!.*(^|/)\\.\\.?(/|$))[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$";

export const mcpServersField = { type: "array", maxItems: 20, items: { $ref: "deployment-mcp-server" }, "x-unique-by": ["name"] } as const;
export const skillsField = { type: "array", maxItems: 100, items: { $ref: "deployment-skill" }, "x-unique-by": ["name"] } as const;

export const deploymentCreateSchema = {
  $id: "deployment-create",
  title: "DeploymentCreate",
  type: "object",
  required: ["customer_id", "name", "system_prompt"],
  additionalProperties: false,
  properties: {
    customer_id: { type: "string", minLength: 1, maxLength: 200 },
    name: { type: "string", minLength: 1, maxLength: 200 },
    runtime: { enum: ["native"] },
    model: { $ref: "model-name" },
    system_prompt: { type: "string", maxLength: 100000 },
    sandbox: { $ref: "deployment-sandbox" },
    mcp_servers: mcpServersField,
    skills: skillsField,
    secrets: {
      type: "object",
      maxProperties: 100,
      propertyNames: { pattern: ENV_NAME_PATTERN },
      additionalProperties: { type: "string", pattern: SECRET_REF_PATTERN },
    },
    features: { $ref: "deployment-features" },
  },
} as const;
