/** The one error type of the HTTP interface; the error middleware writes it as `{error, message}`. */

export type ErrorCode =
  | "validation_error"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "invalid_state"
  | "no_active_turn"
  | "rate_limited"
  | "server_error"
  | "runtime_delete_failed";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const validationError = (message: string) => new ApiError(400, "validation_error", message);
export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);
export const conflict = (message: string) => new ApiError(409, "conflict", message);
export const invalidState = (message: string) => new ApiError(409, "invalid_state", message);
export const noActiveTurn = (message: string) => new ApiError(409, "no_active_turn", message);
export const unavailable = (message: string) => new ApiError(503, "server_error", message);
