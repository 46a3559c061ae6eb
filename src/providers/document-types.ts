/** What the document reader's thread is given and answers (`document-text.ts`, `document-text-worker.ts`). */
export const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
export const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

export interface ExtractJob {
  mediaType: string;
  data: Uint8Array;
  maxChars: number;
}

export type ExtractAnswer = { ok: true; text: string } | { ok: false; reason: string };
