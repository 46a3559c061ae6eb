/** JSON over the API with the key in its header; a refused key signs the console out. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  /** A request with the key in its header, answered as is (the stream reads its body itself). */
  request(path: string, init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }): Promise<Response>;
}

async function failure(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as { error?: string; message?: string } | null;
  return new ApiError(res.status, body?.error ?? "server_error", body?.message ?? `HTTP ${res.status}`);
}

export function apiClient(key: string, onUnauthorized: () => void): Api {
  const request: Api["request"] = async (path, init = {}) => {
    const res = await fetch(path, {
      method: init.method ?? "GET",
      headers: { accept: "application/json", ...init.headers, "x-api-key": key },
      body: init.body ?? null,
      signal: init.signal ?? null,
      cache: "no-store",
      credentials: "omit",
    });
    if (res.status === 401) onUnauthorized();
    return res;
  };
  async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const json = body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    const res = await request(path, { method, ...json });
    if (!res.ok) throw await failure(res);
    return (await res.json()) as T;
  }
  return {
    get: (path) => send("GET", path),
    post: (path, body) => send("POST", path, body),
    request,
  };
}

/** A query string from defined values (the key is never one of them). */
export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
