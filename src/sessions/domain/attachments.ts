/**
 * The attachment rules a schema cannot say (data URL type and size, declared size, PDF-only visual
 * mode), and how the model names an attachment. Pure.
 */
import { attachmentSchema } from "../../../schemas/attachment.js";
import type { Attachment, Envelope } from "./events.js";

/** The largest attachment, a PDF: the schema's bound on a declared size. */
export const MAX_PDF_BYTES = attachmentSchema.properties.sizeBytes.maximum;
/** Every other media type: 25 MB (a MB is 1,048,576 bytes), a per-type rule the schema does not state. */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;

function decodedSize(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** The media types read as plain text, in the data URL's `charset` (UTF-8 without one). */
export const TEXT_MEDIA_TYPES: ReadonlySet<string> = new Set(["text/plain", "text/markdown", "text/x-markdown", "text/csv", "application/csv"]);

/** A base64 data URL (as the schema admits it): its media type, its `charset` if it names one, its payload. */
export function dataUrlParts(url: string): { mime: string; charset: string | null; data: string } {
  const comma = url.indexOf(",");
  const [mime = "", ...params] = url.slice(5, comma).split(";");
  const charset = params.find((p) => p.toLowerCase().startsWith("charset="));
  return { mime, charset: charset ? charset.slice(8) : null, data: url.slice(comma + 1) };
}

/** Whether `label` names an encoding text can be read in (WHATWG labels: utf-8, iso-8859-1, utf-16le, …). */
function isEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/** Problems as `path: constraint` entries; `base` is the attachment's path. */
export function attachmentProblems(a: Attachment, base: string): string[] {
  const problems: string[] = [];
  const { mime, charset, data } = dataUrlParts(a.source.dataUrl);
  if (mime !== a.mediaType) problems.push(`${base}.source.dataUrl: media type must equal mediaType`);
  // Only a text's charset says how it is read (`file --mime` writes `charset=binary` for an image).
  if (charset !== null && TEXT_MEDIA_TYPES.has(a.mediaType) && !isEncoding(charset))
    problems.push(`${base}.source.dataUrl: charset must name a text encoding (e.g. utf-8)`);
  if (data.length === 0) problems.push(`${base}.source.dataUrl: must not be empty`);
  else if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) problems.push(`${base}.source.dataUrl: must be valid base64`);
  const limit = a.mediaType === "application/pdf" ? MAX_PDF_BYTES : MAX_ATTACHMENT_BYTES;
  const size = decodedSize(data);
  if (size > limit) problems.push(`${base}.source.dataUrl: must decode to at most ${limit} bytes`);
  if (a.sizeBytes !== undefined) {
    if (a.sizeBytes > limit) problems.push(`${base}.sizeBytes: must be at most ${limit}`);
    else if (a.sizeBytes !== size) problems.push(`${base}.sizeBytes: must equal the decoded size of source.dataUrl`);
  }
  if (a.analysisMode === "visual" && a.mediaType !== "application/pdf") problems.push(`${base}.analysisMode: visual is only for application/pdf`);
  return problems;
}

/** The filename as shown: no control characters (C0, DEL, C1), bidi overrides or path separators. */
export function sanitizeFilename(name: string): string {
  const clean = name.replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069/\\]/gu, "_").trim();
  return clean === "" ? "file" : clean;
}

/** How the model names an attachment: the event that carried it and its place there, shown next to it. */
export const attachmentRef = (eventId: string, index: number): string => `${eventId}/${index}`;

/** The line shown before an attachment, with the name vision_analyze takes. */
export function attachmentLabel(ref: string, a: Attachment): string {
  const visual = a.analysisMode === "visual" ? "; visual analysis of its pages asked" : "";
  return `[attachment ${ref}: ${a.filename}, ${a.mediaType}${visual}]`;
}

/**
 * The attachment of the user message `e` that `name` stands for: by reference (`<e's id>/<index>`),
 * else the last one with that filename.
 */
export function attachmentNamed(e: Envelope, name: string): Attachment | undefined {
  if (e.type !== "user.message") return undefined;
  const attachments = (e.payload as { attachments?: Attachment[] }).attachments ?? [];
  const index = attachments.findIndex((_, i) => attachmentRef(e.id, i) === name);
  return index >= 0 ? attachments[index] : attachments.findLast((a) => a.filename === name);
}
