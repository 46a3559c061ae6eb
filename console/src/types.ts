/**
 * The API's shapes the console reads: the client package's types, generated from the OpenAPI document.
 * One is narrowed: the document types an event's payload by its `type` alone (each event type has its
 * own fields), and the console reads those fields by name, checking each where it reads it.
 */
import type { components, Event } from "@agent-sessions/client";

type Schemas = components["schemas"];

export type Agent = Schemas["agent"];
export type Session = Schemas["session"];
export type AgentList = Schemas["agent-list"];
export type SessionList = Schemas["session-list"];
export type OffsetPagination = Schemas["offset-pagination"];
export type EventList = Schemas["event-list"];
export type EventsAccepted = Schemas["events-accepted"];
export type EventsPost = Schemas["events-post"];
export type InboundEvent = Schemas["inbound-event"];
export type ApprovalScope = NonNullable<Schemas["user-approval-response"]["scope"]>;

/** An event's payload, its fields read by name. */
export type Payload = Event["payload"] & Record<string, unknown>;
export type EventEnvelope = Event & { payload: Payload };
export type Usage = Schemas["usage"];
