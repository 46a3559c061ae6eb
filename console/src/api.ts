/**
 * The API with the key in its header, through the client package: its resuming event stream, and
 * JSON requests refused with its `ApiError`. Every request is sent without cookies or the HTTP cache,
 * and a refused key signs the console out.
 */
import { apiErrorOf, createAgentSessionsClient, type AgentSessionsClient } from "@agent-sessions/client";

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  /** A session's events, resumed after any drop (`@agent-sessions/client`'s `EventStream`). */
  events: AgentSessionsClient["events"];
}

export function apiClient(key: string, onUnauthorized: () => void): Api {
  const send = async (request: Request): Promise<Response> => {
    const res = await fetch(request, { cache: "no-store", credentials: "omit" });
    if (res.status === 401) onUnauthorized();
    return res;
  };
  const client = createAgentSessionsClient({ baseUrl: location.origin, apiKey: key, fetch: send });
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json", "x-api-key": key };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await send(new Request(path, { method, headers, body: body === undefined ? null : JSON.stringify(body) }));
    if (!res.ok) throw await apiErrorOf(res);
    return (await res.json()) as T;
  }
  return {
    get: (path) => call("GET", path),
    post: (path, body) => call("POST", path, body),
    events: client.events,
  };
}

/** A query string from defined values (the key is never one of them). */
export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
