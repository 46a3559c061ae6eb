/** VersionPath: the path parameters of one agent version: the agent, and the version number. */
export const versionPathSchema = {
  $id: "version-path",
  title: "VersionPath",
  type: "object",
  required: ["agentId", "version"],
  additionalProperties: false,
  properties: { agentId: { type: "string", minLength: 1, maxLength: 100 }, version: { type: "integer", minimum: 1, maximum: 2147483647 } },
} as const;
