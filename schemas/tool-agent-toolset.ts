/** AgentToolset: The built-in toolsets, executed in the managed environment. */
export const toolAgentToolsetSchema = {
  $id: "tool-agent-toolset",
  title: "AgentToolset",
  description: "The built-in toolsets, executed in the managed environment.",
  type: "object",
  required: ["type"],
  additionalProperties: false,
  properties: {
    type: { const: "agent_toolset" },
    defaultConfig: { $ref: "tool-default-config" },
    configs: {
      type: "array",
      "x-unique-by": ["name"],
      maxItems: 11,
      items: {
        type: "object",
        required: ["name"],
        additionalProperties: false,
        properties: {
          name: {
            enum: ["clarify", "vision", "skills", "todo", "memory", "session_search", "code_execution", "web", "terminal", "file", "delegation"],
          },
          enabled: { type: "boolean" },
          permissionPolicy: { $ref: "permission-policy" },
        },
      },
    },
  },
} as const;
