/**
 * One line per event of a session's log, for both tails (the operator's from Redis, the API's over SSE):
 * its sequence, time, type, status and a short summary of its payload (the text of a message, the tool
 * and what it does, why a turn stopped). The envelope itself is what `--json` prints.
 */
import { toolPreview } from "../agent-tools/domain/tool-preview.js";
import { shorten } from "./text.js";

const SUMMARY_MAX = 160;

/** The text of content blocks (blocks without text named by their type); null when there are none. */
export function contentText(content: unknown): string | null {
  if (!Array.isArray(content)) return null;
  return content
    .map((b: unknown) => {
      if (!b || typeof b !== "object") return "";
      const block = b as { type?: unknown; text?: unknown };
      return typeof block.text === "string" ? block.text : `[${String(block.type)}]`;
    })
    .join(" ");
}

/** What the payload says, shortly; the fields a reader looks for first, else the payload's JSON. */
export function summary(payload: Record<string, unknown>): string {
  const parts: string[] = [];
  const tool = typeof payload.tool === "string" ? payload.tool : typeof payload.name === "string" ? payload.name : null;
  if (tool) parts.push(tool);
  if (typeof payload.thread_id === "string") parts.push(`thread ${payload.thread_id}`);
  if (payload.input !== undefined) parts.push((tool && toolPreview(tool, payload.input)) ?? JSON.stringify(payload.input));
  if (typeof payload.status === "string") parts.push(payload.status);
  if (payload.is_error === true) parts.push("error");
  const text = contentText(payload.content);
  if (text !== null) parts.push(JSON.stringify(shorten(text, SUMMARY_MAX)));
  const stop = payload.stop_reason as { type?: unknown; message?: unknown } | undefined;
  if (stop && typeof stop === "object") parts.push(`stop: ${String(stop.type)}${typeof stop.message === "string" ? ` (${stop.message})` : ""}`);
  for (const field of ["message", "error"]) if (typeof payload[field] === "string") parts.push(payload[field] as string);
  if (parts.length === 0) {
    const { type: _type, ...rest } = payload;
    if (Object.keys(rest).length > 0) parts.push(JSON.stringify(rest));
  }
  return shorten(parts.join(" "), SUMMARY_MAX);
}

/** What a line shows of an event: the log's envelope and the API's event both have it. */
export interface LineEvent {
  sequence: number | null;
  createdAt: string;
  type: string;
  status?: string | null;
  payload: Record<string, unknown>;
  usage?: { total: number; calls: number } | null;
}

/** `#<sequence>  <time>  <type>  <status>  <summary>` (and a turn's usage), columns aligned for the usual widths. */
export function eventLine(e: LineEvent): string {
  const usage = e.usage ? ` (${e.usage.total} tokens, ${e.usage.calls} model call(s))` : "";
  return [`#${e.sequence}`.padEnd(6), e.createdAt, e.type.padEnd(26), (e.status ?? "-").padEnd(9), summary(e.payload) + usage].join("  ").trimEnd();
}
