/**
 * The text of a DOCX, XLSX or PDF, read in a worker thread of its own: parsing an untrusted file takes
 * CPU and memory that the worker's event loop (which renews its locks) must not give up, so the thread
 * has a heap limit and a deadline, and a file that exceeds either, or fails to parse, gets a reason
 * instead of text. At most READERS threads run at once in a process, so many documents at once cannot
 * add up past the memory one may take. The text is cut at MAX_DOCUMENT_CHARS, saying so.
 */
import { Worker } from "node:worker_threads";
import pLimit from "p-limit";
import type { ExtractAnswer, ExtractJob } from "./document-types.js";

/** Characters of one document's text given to the model (about 12,500 tokens). */
export const MAX_DOCUMENT_CHARS = 50_000;
const READ_TIMEOUT_MS = 30_000;
const HEAP_MB = 512;
const READERS = 2;
const readers = pLimit(READERS);

const cut = (text: string) =>
  text.length > MAX_DOCUMENT_CHARS
    ? `${text.slice(0, MAX_DOCUMENT_CHARS)}\n[cut: only the first ${MAX_DOCUMENT_CHARS} characters of the document's text are shown]`
    : text;

export function documentText(mediaType: string, data: Buffer): Promise<ExtractAnswer> {
  return readers(() => read(mediaType, data));
}

function read(mediaType: string, data: Buffer): Promise<ExtractAnswer> {
  return new Promise((resolve) => {
    const job: ExtractJob = { mediaType, data, maxChars: MAX_DOCUMENT_CHARS };
    const worker = new Worker(new URL("./document-text-worker.js", import.meta.url), { workerData: job, resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
    const finish = (answer: ExtractAnswer) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(answer.ok ? { ok: true, text: cut(answer.text) } : answer);
    };
    const timer = setTimeout(() => finish({ ok: false, reason: `reading it took over ${READ_TIMEOUT_MS / 1000} s` }), READ_TIMEOUT_MS);
    worker.once("message", (answer: ExtractAnswer) => finish(answer));
    worker.once("error", (err: NodeJS.ErrnoException) =>
      finish({ ok: false, reason: err.code === "ERR_WORKER_OUT_OF_MEMORY" ? `reading it needs over ${HEAP_MB} MB of memory` : "it could not be parsed" }),
    );
    worker.once("exit", () => finish({ ok: false, reason: "its reader stopped" }));
  });
}
