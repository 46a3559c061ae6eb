/** DeploymentEventsQuery: which thread the deployment's event stream follows, and where it starts. */
export const deploymentEventsQuerySchema = {
  $id: "deployment-events-query",
  title: "DeploymentEventsQuery",
  type: "object",
  additionalProperties: false,
  properties: {
    thread_id: { type: "string", minLength: 1, maxLength: 100, description: "The thread to follow; the deployment's default thread when omitted." },
    after: {
      type: "integer",
      minimum: 0,
      maximum: 9007199254740991,
      description: "Replay durable events after this sequence first (ignored with Last-Event-ID).",
    },
  },
} as const;
