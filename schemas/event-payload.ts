/**
 * EventPayload: an event's `payload`, by its `type` (equal to the envelope's): an inbound event as it
 * was accepted, or one the service writes. The document's discriminator gives the client a union that
 * narrows on `type`.
 */
import { OUTBOUND_EVENT_SCHEMAS } from "./outbound-events.js";

const INBOUND = ["user-message", "user-steer", "user-interrupt", "user-approval-response", "user-custom-tool-result", "user-clarify-result"] as const;

export const eventPayloadSchema = {
  $id: "event-payload",
  title: "EventPayload",
  type: "object",
  required: ["type"],
  properties: { type: { type: "string" } },
  discriminator: { propertyName: "type" },
  oneOf: [...INBOUND.map(($ref) => ({ $ref })), ...OUTBOUND_EVENT_SCHEMAS.map(({ $id }) => ({ $ref: $id }))],
} as const;
