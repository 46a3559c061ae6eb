/** What the fake Anthropic API (`fake-anthropic.ts`) answers: the replies a test queues, the requests it records, and the API's error types and messages. */

export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** A streamed message: thinking first, then text, then tool uses, as the real API orders them. */
export interface FakeMessage {
  text?: string;
  thinking?: string;
  /** `rawJson` replaces the JSON of `input` as streamed (e.g. to send a broken one). */
  toolUses?: { id: string; name: string; input?: unknown; rawJson?: string }[];
  usage?: FakeUsage;
  /** Characters per text/thinking delta and per input_json_delta (default 8). */
  chunkSize?: number;
  /** Pause before each event after message_start (default 0). */
  delayMs?: number;
  stopReason?: string;
  /** Sends `event: error` with this body once the text (if any) has been streamed. */
  streamError?: { type: string; message: string };
  /** Sends message_start, then nothing more, keeping the connection open. */
  stall?: boolean;
  /** Ends the response after the content, without message_delta and message_stop. */
  truncate?: boolean;
  /** Answers one JSON message even to a streaming request (a proxy that drops `stream: true`). */
  asJson?: boolean;
}

/** An HTTP error with the API's body `{type: "error", error: {type, message}}`. */
export interface FakeError {
  status: number;
  type?: string;
  message?: string;
  /** Sent as the `retry-after` header (seconds). */
  retryAfter?: number | string;
}

export type FakeReply = FakeMessage | FakeError;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  /** True when the client went away before the reply was complete. */
  closedEarly: boolean;
  /** `performance.now()` when its first text delta was written. */
  firstTextAt?: number;
}

export const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};
export const ERROR_MESSAGES: Record<string, string> = {
  invalid_request_error: "Invalid request",
  authentication_error: "invalid x-api-key",
  permission_error: "Your API key does not have permission to use the specified resource.",
  not_found_error: "Not found",
  request_too_large: "Request exceeds the maximum allowed number of bytes.",
  rate_limit_error: "Number of request tokens has exceeded your per-minute rate limit",
  api_error: "Internal server error",
  overloaded_error: "Overloaded",
};
