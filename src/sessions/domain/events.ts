/** Event envelopes of the per-session log, and the shapes of inbound events, as the schemas say. */
import type { FromSchemas } from "../../../schemas/index.js";
import type { attachmentSchema } from "../../../schemas/attachment.js";
import type { eventSchema } from "../../../schemas/event.js";
import type { inboundEventSchema } from "../../../schemas/inbound-event.js";
import type { stopReasonSchema } from "../../../schemas/stop-reason.js";
import { textBlockSchema } from "../../../schemas/text-block.js";
import { textContentSchema } from "../../../schemas/text-content.js";
import type { timestampSchema } from "../../../schemas/timestamp.js";
import type { usageSchema } from "../../../schemas/usage.js";

/** A turn's usage (on its terminal event) or a session's aggregate. */
export type Usage = FromSchemas<typeof usageSchema>;
/** Why a turn ended: the `stop_reason` of `session.status_idle`. */
export type StopReason = FromSchemas<typeof stopReasonSchema>;

/** Inbound shapes, as the schemas accept them. */
export type TextBlock = FromSchemas<typeof textBlockSchema>;
export type Attachment = FromSchemas<typeof attachmentSchema>;
export type InboundEvent = FromSchemas<typeof inboundEventSchema>;

/**
 * A payload as the domain handles it: its `type`, and fields read by name. Each type's shape is its
 * schema's (`schemas/outbound-events.ts`, the inbound events'), checked against what the service
 * writes by the tests; their union (`event-payload`) is the client's, too costly for the type checker here.
 */
interface DomainPayloadSchema {
  readonly $id: "event-payload";
  readonly type: "object";
  readonly required: readonly ["type"];
  readonly properties: { readonly type: { readonly type: "string" }; readonly stop_reason: { readonly $ref: "stop-reason" } };
}
/** An envelope as the live stream carries it: a durable event, or a live-only frame (`sequence: null`). */
export type LiveEnvelope = FromSchemas<typeof eventSchema, [typeof usageSchema, typeof timestampSchema, typeof stopReasonSchema, DomainPayloadSchema]>;
export type Payload = LiveEnvelope["payload"];
export type EventStatus = NonNullable<LiveEnvelope["status"]>;

/** An envelope of the log. Narrower than the schema, which also describes live-only frames: the log's are numbered. */
export interface Envelope extends LiveEnvelope {
  /** Gapless per session. */
  sequence: number;
}

/**
 * An envelope before the log gives it its sequence. `liveOnly`: a frame of the live stream, never in
 * the log. `replacementOf`: a live-only frame whose `payload.payload` is the replacement payload the
 * same plan writes to the overlay for that event (`session.tool_updated`); the live stream may then
 * hold it without that payload.
 */
export type Draft = Omit<Envelope, "sequence"> & ({ liveOnly?: undefined; replacementOf?: undefined } | { liveOnly: true; replacementOf?: string });

export function draft(
  sessionId: string,
  id: string,
  payload: Payload,
  opts: { turnId?: string | null; status?: EventStatus | null; usage?: Usage; processedAt?: string | null; now: string },
): Draft {
  const d: Draft = {
    id,
    type: payload.type,
    sessionId,
    turnId: opts.turnId ?? null,
    status: opts.status ?? null,
    payload,
    processedAt: opts.processedAt ?? null,
    createdAt: opts.now,
  };
  if (opts.usage) d.usage = opts.usage;
  return d;
}

/** The text of a message's blocks, joined as the model sees it. */
export function textOf(blocks: TextBlock[]): string {
  return blocks.map((b) => b.text).join("\n");
}

/** The most characters a text block holds: the spec's bound on every `text`, the service's own included. */
export const TEXT_BLOCK_MAX_CHARS = textBlockSchema.properties.text.maxLength;
/** The most blocks an array of them holds; with the bound above, the most text one event carries. */
export const TEXT_BLOCKS_MAX = textContentSchema.maxItems;
const TEXT_MAX_CHARS = TEXT_BLOCKS_MAX * TEXT_BLOCK_MAX_CHARS;

/** Where `text` may be cut at or before `at` without splitting a surrogate pair. */
function cutAt(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const last = text.charCodeAt(at - 1);
  return last >= 0xd800 && last <= 0xdbff ? at - 1 : at;
}

/**
 * Text the service writes (a model's message or reasoning, a tool's result) as text blocks: one block,
 * or as many as a longer text needs up to the bound on blocks, none cut inside a surrogate pair (so none
 * over the bound in code points either). A text past 100 blocks (an MCP server's result can be) is cut
 * there, saying so. Callers give text: no text, no block. `writtenText` reads them back.
 */
export function textBlocks(text: string): TextBlock[] {
  if (text.length > TEXT_MAX_CHARS) {
    const note = `\n[cut here: the text has ${text.length} characters, more than one event holds]`;
    text = text.slice(0, cutAt(text, TEXT_MAX_CHARS - note.length)) + note;
  }
  const blocks: TextBlock[] = [];
  for (let at = 0; at < text.length;) {
    const end = cutAt(text, at + TEXT_BLOCK_MAX_CHARS);
    blocks.push({ type: "text", text: text.slice(at, end) });
    at = end;
  }
  return blocks;
}

/** The text of blocks the service wrote (`textBlocks`): exactly the text it split, a signed reasoning's too. */
export function writtenText(blocks: TextBlock[]): string {
  return blocks.map((b) => b.text).join("");
}
