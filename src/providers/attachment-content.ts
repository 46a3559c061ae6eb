/**
 * What a model is given for each attachment, provider-neutrally: images and PDFs as they are where the
 * provider reads them, text files as their text, and DOCX, XLSX (and PDFs for a provider without PDF
 * support) as the text read from them. Reading a document happens once per attachment object: the
 * worker keeps a session's transcript, and with it the same attachment objects, between model calls.
 */
import { dataUrlParts, TEXT_MEDIA_TYPES } from "../sessions/domain/attachments.js";
import type { Attachment } from "../sessions/domain/events.js";
import type { ModelMessage } from "./domain/model-types.js";
import { documentText } from "./document-text.js";
import { DOCX, XLSX, type ExtractAnswer } from "./document-types.js";
import type { ModelInputs } from "./provider.js";

export type AttachmentContent =
  | { kind: "image"; mediaType: string; data: string }
  | { kind: "pdf"; data: string }
  /** Text for the model: a text file, or what was read from a document (with `note` on how). */
  | { kind: "text"; text: string; note?: string }
  /** A sentence telling the model why it cannot see the attachment. */
  | { kind: "unreadable"; text: string };

const PDF = "application/pdf";
export const PDF_AS_TEXT_NOTE = "the text of the PDF's pages: this model does not read PDF pages as images";

const read = new WeakMap<Attachment, Promise<ExtractAnswer>>();

/** The base64 payload of a data URL (percent-encoded ones are re-encoded), or undefined if malformed. */
export function base64Of(dataUrl: string): string | undefined {
  const m = /^data:([^,]*),([\s\S]*)$/.exec(dataUrl);
  if (!m) return undefined;
  const meta = m[1]!;
  const payload = m[2]!;
  if (/;base64$/i.test(meta)) return payload.replace(/\s+/g, "");
  try {
    return Buffer.from(decodeURIComponent(payload), "utf8").toString("base64");
  } catch {
    return undefined;
  }
}

async function extracted(a: Attachment, mediaType: string, data: string, note?: string): Promise<AttachmentContent> {
  let pending = read.get(a);
  if (!pending) read.set(a, (pending = documentText(mediaType, Buffer.from(data, "base64"))));
  const answer = await pending;
  if (!answer.ok) return { kind: "unreadable", text: `The attachment ${a.filename} (${a.mediaType}) could not be read: ${answer.reason}.` };
  return { kind: "text", text: answer.text || "(no text)", ...(note ? { note } : {}) };
}

export async function attachmentContent(a: Attachment, reads: ModelInputs): Promise<AttachmentContent> {
  const mediaType = a.mediaType.toLowerCase();
  const data = base64Of(a.source.dataUrl);
  if (data !== undefined) {
    if (reads.images.has(mediaType)) return { kind: "image", mediaType, data };
    if (mediaType === PDF) return reads.pdf ? { kind: "pdf", data } : extracted(a, mediaType, data, PDF_AS_TEXT_NOTE);
    if (TEXT_MEDIA_TYPES.has(mediaType))
      return { kind: "text", text: new TextDecoder(dataUrlParts(a.source.dataUrl).charset ?? "utf-8").decode(Buffer.from(data, "base64")) };
    if (mediaType === DOCX || mediaType === XLSX) return extracted(a, mediaType, data);
  }
  return { kind: "unreadable", text: `The attachment ${a.filename} (${a.mediaType}) cannot be read by this model.` };
}

/**
 * The content of every attachment of `messages`, read concurrently. An abort answers at once; the
 * reading goes on and is kept for the next call.
 */
export async function attachmentContents(
  messages: readonly ModelMessage[],
  reads: ModelInputs,
  signal: AbortSignal,
): Promise<Map<Attachment, AttachmentContent>> {
  const all = messages.flatMap((m) => m.content.flatMap((b) => (b.type === "attachment" ? [b.attachment] : [])));
  if (all.length === 0) return new Map();
  const contents = Promise.all(all.map(async (a) => [a, await attachmentContent(a, reads)] as const));
  let onAbort = () => undefined as void;
  const aborted = new Promise<never>((_, reject) => (onAbort = () => reject(new DOMException("aborted", "AbortError"))));
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  try {
    return new Map(await Promise.race([contents, aborted]));
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
