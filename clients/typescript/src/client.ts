/**
 * The client: every operation of the API through `openapi-fetch`, typed by the generated document
 * (paths, parameters, bodies, responses); refusals thrown as `ApiError`; `429`s and `503`s that say when
 * to come back retried (`retry.ts`); and a session's events as a resuming stream (`event-stream.ts`).
 */
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import { ApiError, apiErrorOf, UNEXPECTED_RESPONSE } from "./errors.js";
import { EventStream, type EventStreamOptions } from "./event-stream.js";
import type { paths } from "./generated/openapi.js";
import { retryingFetch, type RetryOptions } from "./retry.js";

export interface ClientOptions {
  /** Where the API is, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** Sent in `x-api-key`, the header the API reads; never put in a URL. */
  apiKey: string;
  retry?: RetryOptions;
  /** Another `fetch` (a proxy's, a test's); default the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

export type Api = Client<paths>;

export interface AgentSessionsClient {
  /** Every operation of the API, e.g. `api.POST("/v1/sessions", { body })`; a refusal throws `ApiError`. */
  readonly api: Api;
  /** The session's events from `options.from` on (default its first), resuming after any disconnect. */
  events(sessionId: string, options?: EventStreamOptions): EventStream;
}

/** Every response but a success becomes an `ApiError` with the spec's code. */
const refusalsThrow: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await apiErrorOf(response);
    return undefined;
  },
};

export function createAgentSessionsClient(options: ClientOptions): AgentSessionsClient {
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const api = createFetchClient<paths>({ baseUrl, headers: { "x-api-key": options.apiKey }, fetch: retryingFetch(fetchImpl, options.retry) });
  api.use(refusalsThrow);
  return {
    api,
    events: (sessionId, streamOptions) => new EventStream({ baseUrl, apiKey: options.apiKey, sessionId, fetch: fetchImpl }, streamOptions),
  };
}

/**
 * The data of a call, typed without its error branch: `const s = await ok(api.GET(...))`. A refusal has
 * thrown already; a success without a body (none in this API) throws too.
 */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined) throw new ApiError(response.status, UNEXPECTED_RESPONSE, `HTTP ${response.status} without a body`);
  return data;
}
