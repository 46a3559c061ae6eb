/**
 * The session log's events as a discriminated union: the document types an event's `payload` by its
 * `type` (`event-payload`, one schema per event type), and this spreads that over the envelope, so that
 * narrowing on `event.type` gives the payload's own fields (`agent.message` → `payload.delta`, `content`).
 * Nothing here is written by hand per type: a new event schema in the service shows up after
 * `npm run client:types`.
 */
import type { components } from "./generated/openapi.js";

type Schemas = components["schemas"];
type Envelope = Schemas["event"];

/** Any event's payload: `payload.type` equals the event's `type`. */
export type EventPayload = Envelope["payload"];

type Spread<P> = P extends { type: infer T } ? Omit<Envelope, "type" | "payload"> & { type: T; payload: P } : never;

/** An event of the session log (or a live-only frame, `sequence: null`), narrowed by `type`. */
export type Event = Spread<EventPayload>;
/** Every event type. */
export type EventType = Event["type"];
/** The event of one type: `EventOf<"agent.message">`. */
export type EventOf<T extends EventType> = Extract<Event, { type: T }>;

export type TextBlock = Schemas["text-block"];
export type Usage = Schemas["usage"];
/** Why a turn ended: `session.status_idle`'s `stop_reason`. */
export type StopReason = Schemas["stop-reason"];
/** An event the client sends (`user.message`, `user.approval_response`, …). */
export type InboundEvent = Schemas["inbound-event"];

/** The text of text blocks, joined. */
export const textOf = (content: readonly { text: string }[]): string => content.map((b) => b.text).join("");

/** The events a page or a send answers with, typed as the union (the document's list shapes type them as the plain envelope). */
export const asEvents = (events: readonly Envelope[]): Event[] => events as Event[];
