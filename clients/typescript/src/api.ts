/** The `openapi-fetch` clients over the documents' paths, which every resource method calls: retrying, refusals thrown. */
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import { apiErrorOf } from "./errors.js";
import type { paths } from "./generated/openapi.js";
import { retryingFetch, type RetryOptions } from "./retry.js";

export type Api = Client<paths>;

/** What both interfaces' clients take. */
export interface ConnectionOptions {
  /** Where the interface is, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** The API key; never put in a URL. */
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

/** A typed, retrying client of `Paths` at `options.baseUrl`, sending `headers` on every request. */
export function connect<Paths extends object>(options: ConnectionOptions, headers: Record<string, string>) {
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const retry: RetryOptions = {
    ...options.retry,
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  const api = createFetchClient<Paths>({ baseUrl, headers, fetch: retryingFetch(fetchImpl, retry) });
  api.use(refusalsThrow);
  return { api, baseUrl, fetch: fetchImpl };
}
