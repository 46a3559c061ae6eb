/**
 * The client of the core interface: resource methods (`client.agents`, `sessions`, `events`, `vaults`,
 * `automations`), typed by the generated document; every operation also through `client.api`
 * (`openapi-fetch`); refusals thrown as the `ApiError` of their status; connection failures, `429`s and
 * `5xx`s retried with one `Idempotency-Key` (`retry.ts`); and a session's events as a resuming stream.
 */
import { connect, type ConnectionOptions } from "./api.js";
import type { paths } from "./generated/openapi.js";
import { agentsResource } from "./resources/agents.js";
import { automationsResource } from "./resources/automations.js";
import { eventsResource } from "./resources/events.js";
import { sessionsResource } from "./resources/sessions.js";
import { vaultsResource } from "./resources/vaults.js";

/** `apiKey` is sent in `x-api-key`, the header the core interface reads. */
export type ClientOptions = ConnectionOptions;

export function createAgentSessionsClient(options: ClientOptions) {
  const { api, baseUrl, fetch } = connect<paths>(options, { "x-api-key": options.apiKey });
  const events = eventsResource(api, { baseUrl, apiKey: options.apiKey, fetch });
  return {
    /** Every operation of the API, e.g. `api.POST("/v1/sessions", { body })`; a refusal throws `ApiError`. */
    api,
    agents: agentsResource(api),
    sessions: sessionsResource(api, events),
    /** `client.events(sessionId, options)` is `client.events.stream(sessionId, options)`. */
    events,
    vaults: vaultsResource(api),
    automations: automationsResource(api),
  };
}

export type AgentSessionsClient = ReturnType<typeof createAgentSessionsClient>;
