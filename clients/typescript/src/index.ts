/** The typed TypeScript client of the Agent Sessions API. */
export type { Api, ConnectionOptions } from "./api.js";
export { createAgentSessionsClient, type AgentSessionsClient, type ClientOptions } from "./client.js";
export { backoffDelay, type BackoffOptions } from "./delay.js";
export {
  AgentSessionsError,
  ApiError,
  apiErrorOf,
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  isApiError,
  makeApiError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  REQUEST_ID_HEADER,
  retryAfterSeconds,
  UnprocessableEntityError,
  UNEXPECTED_RESPONSE,
  type ApiErrorDetails,
  type ErrorBody,
  type ErrorCode,
  type RateLimit,
} from "./errors.js";
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
export { cursorPages, PagePromise, type CursorPage, type OffsetPage, type SequencePage } from "./pagination.js";
export { ok, type Body, type Query, type RequestOptions, type Result } from "./request.js";
export type { AgentsResource } from "./resources/agents.js";
export type { AutomationRef, AutomationsResource } from "./resources/automations.js";
export type { EventsResource, Prompt, TurnOptions } from "./resources/events.js";
export type { SessionsResource } from "./resources/sessions.js";
export type { VaultsResource } from "./resources/vaults.js";
export { retriableStatus, retryDelay, retryingFetch, type RetryInfo, type RetryOptions } from "./retry.js";
export { TurnStream, type TurnResult } from "./turn.js";
export { createDeploymentsClient, type DeploymentsBody, type DeploymentsClient, type DeploymentsQuery } from "./deployments.js";
export type { components as DeploymentsComponents, operations as DeploymentsOperations, paths as DeploymentsPaths } from "./generated/deployments.js";
