/** The API's refusals as one error type, carrying the spec's error code (the status plus the code is the contract). */
import type { components } from "./generated/openapi.js";

export type ErrorBody = components["schemas"]["error"];
/** The `error` codes the document lists. */
export type ErrorCode = ErrorBody["error"];
/** The `rateLimit` of an allowance's `429`. */
export type RateLimit = NonNullable<ErrorBody["rateLimit"]>;

/** A status whose body is not the API's error shape (a proxy's page, say). */
export const UNEXPECTED_RESPONSE = "unexpected_response";

export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly status: number,
    readonly code: ErrorCode | typeof UNEXPECTED_RESPONSE,
    message: string,
    /** An allowance's standing, on its `429`. */
    readonly rateLimit?: RateLimit,
    /** `Retry-After` in seconds, when the response had one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Whether `err` is an API error, with one of `codes` when any are given. */
export function isApiError(err: unknown, ...codes: ErrorCode[]): err is ApiError {
  return err instanceof ApiError && (codes.length === 0 || (codes as string[]).includes(err.code));
}

const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof body === "object" && body !== null && typeof (body as ErrorBody).error === "string" && typeof (body as ErrorBody).message === "string";

/** `Retry-After` in seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The error a refused response stands for; reads (consumes) its body. */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const retryAfter = retryAfterSeconds(response.headers);
  if (!isErrorBody(body))
    return new ApiError(response.status, UNEXPECTED_RESPONSE, `HTTP ${response.status}: the body is not an API error`, undefined, retryAfter);
  return new ApiError(response.status, body.error, body.message, body.rateLimit, retryAfter);
}
