/**
 * The client: resource methods (`client.agents`, `sessions`, `events`, `vaults`, `automations`), typed
 * by the generated document; every operation also through `client.api` (`openapi-fetch`); refusals
 * thrown as the `ApiError` of their status; connection failures, `429`s and `5xx`s retried with one
 * `Idempotency-Key` (`retry.ts`); and a session's events as a resuming stream (`event-stream.ts`).
 */
import createFetchClient, { type Middleware } from "openapi-fetch";
import type { Api } from "./api.js";
import { apiErrorOf } from "./errors.js";
import type { paths } from "./generated/openapi.js";
import { agentsResource } from "./resources/agents.js";
import { automationsResource } from "./resources/automations.js";
import { eventsResource } from "./resources/events.js";
import { sessionsResource } from "./resources/sessions.js";
import { vaultsResource } from "./resources/vaults.js";
import { retryingFetch, type RetryOptions } from "./retry.js";

export interface ClientOptions {
  /** Where the API is, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** Sent in `x-api-key`, the header the API reads; never put in a URL. */
  apiKey: string;
  /** Retries after the first attempt (default 2); the same as `retry.maxRetries`. */
  maxRetries?: number;
  /** An attempt with no answer's headers after this long is abandoned as timed out and retried (default 120 s). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Another `fetch` (a proxy's, a test's); default the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Every response but a success becomes the `ApiError` of its status, with the spec's code and the request id. */
const refusalsThrow: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await apiErrorOf(response);
    return undefined;
  },
};

export function createAgentSessionsClient(options: ClientOptions) {
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const retry: RetryOptions = {
    ...options.retry,
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  const api: Api = createFetchClient<paths>({ baseUrl, headers: { "x-api-key": options.apiKey }, fetch: retryingFetch(fetchImpl, retry) });
  api.use(refusalsThrow);
  const events = eventsResource(api, { baseUrl, apiKey: options.apiKey, fetch: fetchImpl });
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
