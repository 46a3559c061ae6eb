/**
 * The check a DOCX or XLSX (a zip) passes before it is parsed: mammoth and exceljs inflate every part
 * into memory, and inflated bytes are outside the reader thread's heap limit, so a zip bomb is refused
 * here. Each entry's declared size is added up before it is inflated and dropped, which yauzl stops
 * with an error as soon as the entry outgrows its declared size (a lying header).
 */
import yauzl from "yauzl";

/** The most a document may expand to in all: far above any real DOCX or XLSX of an attachment's size. */
export const MAX_EXPANDED_BYTES = 100 * 2 ** 20;
const MAX_ENTRIES = 10_000;

/** Why the zip in `data` is refused, or null when it stays within the bounds. */
export async function zipProblem(data: Buffer): Promise<string | null> {
  const zip = await yauzl.fromBufferPromise(data, { lazyEntries: true, validateEntrySizes: true });
  if (zip.entryCount > MAX_ENTRIES) return `it holds over ${MAX_ENTRIES} files`;
  let declared = 0;
  for await (const entry of zip.eachEntry()) {
    declared += entry.uncompressedSize;
    if (declared > MAX_EXPANDED_BYTES) return `it expands to over ${MAX_EXPANDED_BYTES / 2 ** 20} MB`;
    if (entry.fileName.endsWith("/")) continue;
    const stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream) void chunk;
  }
  return null;
}
