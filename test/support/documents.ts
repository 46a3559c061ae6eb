/** Documents for the attachment tests: a DOCX fixture, XLSX workbooks built with exceljs, a one-page PDF, zip bombs, and attachments of them. */
import { readFileSync } from "node:fs";
import { crc32, deflateRawSync } from "node:zlib";
import ExcelJS from "exceljs";

export const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
export const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** A DOCX of two paragraphs ("Refund policy", "Refunds within **30 days**."), built with Python's zipfile from hand-written WordprocessingML. */
export const refundsDocx = (): Buffer => readFileSync(new URL("../../../test/fixtures/refunds.docx", import.meta.url));

/** A workbook whose sheets are given as rows. */
export async function workbook(sheets: Record<string, unknown[][]>): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) book.addWorksheet(name).addRows(rows);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** A one-page PDF whose page says `text` (pdf.js rebuilds the cross-reference table this file leaves out). */
export function onePagePdf(text: string): Buffer {
  const stream = `BT /F1 18 Tf 20 80 Td (${text}) Tj ET`;
  return Buffer.from(
    [
      "%PDF-1.4",
      "1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj",
      "2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj",
      "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 144]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj",
      `4 0 obj<</Length ${stream.length}>>stream`,
      stream,
      "endstream endobj",
      "5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj",
      "trailer<</Root 1 0 R>>",
      "%%EOF",
    ].join("\n"),
  );
}

/** A 1×1 PNG. */
export const DOT_PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cfc0f01f0005000201a2b5f4a90000000049454e44ae426082",
  "hex",
);

export function file(filename: string, mediaType: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
  return { type: "file", filename, mediaType, source: { type: "data_url", dataUrl: `data:${mediaType};base64,${bytes.toString("base64")}` }, ...extra };
}

export function messageWith(text: string, ...attachments: unknown[]) {
  return { type: "user.message", content: [{ type: "text", text }], attachments };
}

/**
 * A zip of one deflated entry whose central directory declares `declaredSize` bytes (the real size
 * unless told): a DOCX "zip bomb" when the content is large and repetitive.
 */
export function oneEntryZip(name: string, content: Buffer, declaredSize = content.length): Buffer {
  const data = deflateRawSync(content, { level: 1 });
  const fileName = Buffer.from(name);
  const common = (header: Buffer, at: number) => {
    header.writeUInt16LE(20, at); // version needed
    header.writeUInt16LE(0, at + 2); // flags
    header.writeUInt16LE(8, at + 4); // deflate
    header.writeUInt32LE(0x210000, at + 6); // DOS time and date: 1980-01-01
    header.writeUInt32LE(crc32(content), at + 10);
    header.writeUInt32LE(data.length, at + 14);
    header.writeUInt32LE(declaredSize, at + 18);
    header.writeUInt16LE(fileName.length, at + 22);
  };
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  common(local, 4);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4); // version made by
  common(central, 6);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + fileName.length, 12);
  end.writeUInt32LE(30 + fileName.length + data.length, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}
