/** The typed TypeScript client of the Agent Sessions API. */
export { createAgentSessionsClient, ok, type AgentSessionsClient, type Api, type ClientOptions } from "./client.js";
export { backoffDelay, type BackoffOptions } from "./delay.js";
export { ApiError, apiErrorOf, isApiError, retryAfterSeconds, UNEXPECTED_RESPONSE, type ErrorBody, type ErrorCode, type RateLimit } from "./errors.js";
export { EventStream, type EventStreamOptions, type ReconnectInfo, type StreamPosition, type StreamState } from "./event-stream.js";
export {
  asEvents,
  textOf,
  type Event,
  type EventOf,
  type EventPayload,
  type EventType,
  type InboundEvent,
  type StopReason,
  type TextBlock,
  type Usage,
} from "./events.js";
export type { components, operations, paths } from "./generated/openapi.js";
export { retryDelay, retryingFetch, type RetryInfo, type RetryOptions } from "./retry.js";
