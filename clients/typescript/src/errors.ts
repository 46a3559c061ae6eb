/**
 * The client's errors. Every one is an `AgentSessionsError`. A refusal from the API is an `ApiError`
 * (status, the spec's `code`, message, the response's request id), made as the class of its status
 * (`NotFoundError`, `RateLimitError`, …), so a `catch` can test the class or the code. A request that got
 * no answer at all, after its retries, is an `APIConnectionError` (`APIConnectionTimeoutError` when it
 * timed out), never the platform's bare `TypeError: fetch failed`.
 */
import type { components } from "./generated/openapi.js";

export type ErrorBody = components["schemas"]["error"];
/** The `error` codes the document lists. */
export type ErrorCode = ErrorBody["error"];
/** The `rateLimit` of an allowance's `429`. */
export type RateLimit = NonNullable<ErrorBody["rateLimit"]>;

/** A status whose body is not the API's error shape (a proxy's page, say). */
export const UNEXPECTED_RESPONSE = "unexpected_response";

/** The header the service names each request by, in its logs too (`x-request-id`). */
export const REQUEST_ID_HEADER = "x-request-id";

/** The base of every error the client throws. */
export class AgentSessionsError extends Error {
  override name = "AgentSessionsError";
}

export interface ApiErrorDetails {
  /** The service's id of the request (`x-request-id`), to quote when asking about it. */
  requestId?: string;
  /** An allowance's standing, on its `429`. */
  rateLimit?: RateLimit;
  /** `Retry-After` in seconds, when the response had one. */
  retryAfterSeconds?: number;
}

export class ApiError extends AgentSessionsError {
  override name = "ApiError";
  readonly requestId: string | undefined;
  readonly rateLimit: RateLimit | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly status: number,
    readonly code: ErrorCode | typeof UNEXPECTED_RESPONSE,
    message: string,
    details: ApiErrorDetails = {},
  ) {
    super(message);
    this.requestId = details.requestId;
    this.rateLimit = details.rateLimit;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** 400: the body, query or path broke the schema (`validation_error`), one `path: constraint` per problem. */
export class BadRequestError extends ApiError {
  override name = "BadRequestError";
}
/** 401: a missing, invalid or revoked key (`unauthorized`). */
export class AuthenticationError extends ApiError {
  override name = "AuthenticationError";
}
/** 402: the organization's credits do not cover it (`insufficient_credits`). */
export class PaymentRequiredError extends ApiError {
  override name = "PaymentRequiredError";
}
/** 403: the key lacks the scope (`forbidden`). */
export class PermissionDeniedError extends ApiError {
  override name = "PermissionDeniedError";
}
/** 404: no such resource in the key's organization (`not_found`). */
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
/** 409: the resource's state or version forbids it (`conflict`, `invalid_state`, `no_active_turn`, `budget_exceeded`). */
export class ConflictError extends ApiError {
  override name = "ConflictError";
}
/** 422: understood but refused (`invalid_skill`, `invalid_secret_ref`, `idempotency_error`). */
export class UnprocessableEntityError extends ApiError {
  override name = "UnprocessableEntityError";
}
/** 429: a ceiling or allowance reached (`rate_limited`); `retryAfterSeconds` says when to come back. */
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
}
/** 5xx: the service failed or a store was out of reach (`server_error`). */
export class InternalServerError extends ApiError {
  override name = "InternalServerError";
}

/** No answer: the connection was refused, reset or dropped, after the retries. */
export class APIConnectionError extends AgentSessionsError {
  override name = "APIConnectionError";
  constructor(message = "Connection error.", options?: { cause?: unknown }) {
    super(message, options);
  }
}
/** No answer within the request's timeout, after the retries. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = "APIConnectionTimeoutError";
  constructor(message = "Request timed out.", options?: { cause?: unknown }) {
    super(message, options);
  }
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The `ApiError` of a status: its class (5xx `InternalServerError`; others the base class). */
export function makeApiError(status: number, code: ApiError["code"], message: string, details: ApiErrorDetails = {}): ApiError {
  const Class = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : ApiError);
  return new Class(status, code, message, details);
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

/** The error a refused response stands for, of its status's class; reads (consumes) its body. */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const details = { requestId: response.headers.get(REQUEST_ID_HEADER) ?? undefined, retryAfterSeconds: retryAfterSeconds(response.headers) };
  if (!isErrorBody(body)) return makeApiError(response.status, UNEXPECTED_RESPONSE, `HTTP ${response.status}: the body is not an API error`, details);
  return makeApiError(response.status, body.error, body.message, { ...details, rateLimit: body.rateLimit });
}
