/**
 * SessionsListQuery: filters and page of the session list; `agent` and `subject` are aliases.
 * `waitingOnHuman`, beyond the spec's parameters, lists the sessions waiting on a human, which the spec
 * refuses as a `status` value (decisions: sessions).
 */
export const sessionsListQuerySchema = {
  $id: "sessions-list-query",
  title: "SessionsListQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    agentId: { type: "string", minLength: 1, maxLength: 100, description: "Only sessions of this agent." },
    agent: { type: "string", minLength: 1, maxLength: 100, description: "Alias of agentId; when both are given they must be equal." },
    subjectId: { $ref: "subject-id", description: "Only sessions of this subject." },
    subject: { $ref: "subject-id", description: "Alias of subjectId; when both are given they must be equal." },
    status: {
      enum: ["idle", "running", "archived"],
      description: "Only sessions with this status; without it, archived sessions are left out. waiting_on_human is not a filter.",
      errorMessage: "must be one of: idle, running, archived (waiting_on_human is not accepted as a filter)",
    },
    waitingOnHuman: {
      type: "boolean",
      const: true,
      description: "true: only sessions whose turn waits on a human (status waiting_on_human). Not given with status.",
      errorMessage: "must be true (leave it out for sessions of any status)",
    },
    limit: { type: "integer", minimum: 1, maximum: 100, default: 50 },
    offset: { type: "integer", minimum: 0, maximum: 100000, default: 0 },
  },
} as const;
