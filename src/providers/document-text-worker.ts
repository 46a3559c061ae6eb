/**
 * Runs in a worker thread, one per document (`document-text.ts` starts it): the text of a DOCX
 * (mammoth's raw text), an XLSX (each sheet as CSV lines, read with exceljs) or a PDF (each page's
 * text, read with pdf.js). A DOCX or XLSX is first checked for a zip bomb (`zip-bounds.ts`). Reading
 * stops a little past `maxChars`; the caller cuts and says so.
 */
import { parentPort, workerData } from "node:worker_threads";
import ExcelJS from "exceljs";
import mammoth from "mammoth";
import { getDocument, VerbosityLevel } from "pdfjs-dist/legacy/build/pdf.mjs";
import { DOCX, XLSX, type ExtractAnswer, type ExtractJob } from "./document-types.js";
import { zipProblem } from "./zip-bounds.js";

const csvField = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** A cell as shown, dates as ISO dates (exceljs shows them as JavaScript's long date strings). */
function cellText(cell: ExcelJS.Cell): string {
  const v = cell.value;
  if (v instanceof Date) return v.toISOString().replace("T00:00:00.000Z", "");
  return cell.text;
}

async function xlsxText(data: Uint8Array, maxChars: number): Promise<string> {
  const book = new ExcelJS.Workbook();
  // exceljs declares its own `Buffer` (an ArrayBuffer); it reads either.
  await book.xlsx.load(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
  const parts: string[] = [];
  let size = 0;
  for (const sheet of book.worksheets) {
    if (size > maxChars) break;
    const lines = [`## Sheet: ${sheet.name}`];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      if (size > maxChars) return;
      const line = Array.from({ length: row.cellCount }, (_, i) => csvField(cellText(row.getCell(i + 1)))).join(",");
      lines.push(line);
      size += line.length + 1;
    });
    if (lines.length === 1) lines.push("(empty)");
    parts.push(lines.join("\n"));
  }
  return parts.join("\n\n");
}

async function pdfText(data: Uint8Array, maxChars: number): Promise<string> {
  const doc = await getDocument({ data, verbosity: VerbosityLevel.ERRORS, isEvalSupported: false, disableFontFace: true }).promise;
  const pages: string[] = [];
  let size = 0;
  for (let n = 1; n <= doc.numPages && size <= maxChars; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    const text = content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
    pages.push(`## Page ${n}\n${text.trim()}`);
    size += text.length;
  }
  await doc.destroy();
  return pages.join("\n\n");
}

async function extract({ mediaType, data, maxChars }: ExtractJob): Promise<ExtractAnswer> {
  try {
    if (mediaType === DOCX || mediaType === XLSX) {
      const problem = await zipProblem(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      if (problem) return { ok: false, reason: problem };
    }
    if (mediaType === DOCX) return { ok: true, text: (await mammoth.extractRawText({ buffer: Buffer.from(data) })).value.trim() };
    if (mediaType === XLSX) return { ok: true, text: await xlsxText(data, maxChars) };
    return { ok: true, text: await pdfText(data, maxChars) };
  } catch {
    return { ok: false, reason: "it is damaged or not the file type it claims to be" };
  }
}

parentPort!.postMessage(await extract(workerData as ExtractJob));
