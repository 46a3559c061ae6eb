/**
 * The API's shapes the console reads: the client package's types, generated from the OpenAPI document.
 * One is loosened: the console reads an event's payload fields by name, checking each where it reads
 * it, rather than narrowing the client's `Event` union by type.
 */
import type { components } from "@agent-sessions/client";

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

/** An event's payload, its fields read by name (the client's `Event` union narrows by type instead). */
export type Payload = { type: string; stop_reason?: Schemas["stop-reason"] } & Record<string, unknown>;
export type EventEnvelope = Omit<Schemas["event"], "payload"> & { payload: Payload };
export type Usage = Schemas["usage"];
