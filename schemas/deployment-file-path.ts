/** DeploymentFilePath: `{deployment_id}` and a workspace-relative `{path}`. */
import { WORKSPACE_PATH_PATTERN } from "./deployment-create.js";

export const deploymentFilePathSchema = {
  $id: "deployment-file-path",
  title: "DeploymentFilePath",
  type: "object",
  required: ["deployment_id", "path"],
  additionalProperties: false,
  properties: { deployment_id: { type: "string", minLength: 1, maxLength: 100 }, path: { type: "string", maxLength: 1024, pattern: WORKSPACE_PATH_PATTERN } },
} as const;
