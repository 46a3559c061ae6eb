/** CallableAgent: an agent of the same organization a version may delegate work to. */
export const callableAgentSchema = {
  $id: "callable-agent",
  title: "CallableAgent",
  description:
    "An agent of the same organization this version may delegate work to. The model sees one tool per entry, `delegate__<agentId>`, in the built-in `delegation` toolset; each call opens a child thread (a session of its own) running the callee's latest version.",
  type: "object",
  required: ["agentId", "description"],
  additionalProperties: false,
  properties: {
    agentId: { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" },
    description: {
      type: "string",
      minLength: 1,
      maxLength: 2000,
      description: "What the callee does: the delegation tool's description, as the model reads it.",
    },
  },
} as const;
