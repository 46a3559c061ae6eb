/**
 * DOCX, XLSX and (for a model without PDF support) PDF attachments reach the model as the text read
 * from them, bounded, and a file that cannot be read as a sentence saying so: the mock model's
 * `/attachments` lists what it received.
 */
import { expect } from "chai";
import { client, startServer, type Client, type TestServer } from "./support/server.js";
import { DOCX, DOT_PNG, file, messageWith, oneEntryZip, onePagePdf, refundsDocx, workbook, XLSX } from "./support/documents.js";
import { agentTexts, createSession, settle } from "./support/sessions.js";

describe("document attachments reach the model as text", () => {
  let server: TestServer;
  let api: Client;
  before(async () => {
    server = await startServer();
    api = client(server.url, await server.newKey());
  });
  after(async () => server?.close());

  /** The mock model's reply to `/attachments` with these attachments, and the message's event id. */
  async function received(...attachments: unknown[]): Promise<{ reply: string; eventId: string; events: any[] }> {
    const { sessionId } = await createSession(api);
    const sent = await api.post(`/v1/sessions/${sessionId}/events`, { events: [messageWith("/attachments", ...attachments)] });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(202);
    const events = await settle(api, sessionId, 1, 30_000);
    return { reply: agentTexts(events)[0]!, eventId: sent.body.data[0].id, events };
  }

  it("a DOCX as its raw text and an XLSX as CSV lines per sheet, each after the line naming it", async () => {
    const xlsx = await workbook({
      Prices: [
        ["item", "price"],
        ["tea, green", 3.5],
        ["day", new Date("2024-01-02T00:00:00Z")],
      ],
      Empty: [],
    });
    const { reply, eventId } = await received(
      file("refunds.docx", DOCX, refundsDocx()),
      file("prices.xlsx", XLSX, xlsx),
      file("dot.png", "image/png", DOT_PNG),
    );
    expect(reply).to.equal(
      [
        "attachments: 3",
        `[attachment ${eventId}/0: refunds.docx, ${DOCX}]`,
        "Refund policy\n\nRefunds within 30 days.",
        `[attachment ${eventId}/1: prices.xlsx, ${XLSX}]`,
        '## Sheet: Prices\nitem,price\n"tea, green",3.5\nday,2024-01-02\n\n## Sheet: Empty\n(empty)',
        `[attachment ${eventId}/2: dot.png, image/png]`,
        `image, ${DOT_PNG.length} bytes`,
      ].join("\n"),
    );
  });

  it("a PDF reaches a model without PDF support as its pages' text, with a note, in either mode", async () => {
    const pdf = onePagePdf("Hello PDF world");
    const { reply, eventId } = await received(file("a.pdf", "application/pdf", pdf), file("b.pdf", "application/pdf", pdf, { analysisMode: "visual" }));
    const note = "(the text of the PDF's pages: this model does not read PDF pages as images)";
    expect(reply).to.equal(
      [
        "attachments: 2",
        `[attachment ${eventId}/0: a.pdf, application/pdf]`,
        `${note}\n## Page 1\nHello PDF world`,
        `[attachment ${eventId}/1: b.pdf, application/pdf; visual analysis of its pages asked]`,
        `${note}\n## Page 1\nHello PDF world`,
      ].join("\n"),
    );
  });

  it("a long document is cut at 50,000 characters, saying so", async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => [`row ${i}`, "x".repeat(20)]);
    const { reply } = await received(file("big.xlsx", XLSX, await workbook({ Big: rows })));
    const text = reply.split("\n").slice(2).join("\n");
    expect(text).to.match(/\n\[cut: only the first 50000 characters of the document's text are shown\]$/);
    expect(text.length).to.equal(50_000 + "\n[cut: only the first 50000 characters of the document's text are shown]".length);
  });

  it("a corrupt DOCX or XLSX is a sentence saying it could not be read, and the turn ends normally", async () => {
    const junk = Buffer.from("PK\u0003\u0004 not really a zip");
    const { reply, events } = await received(file("broken.docx", DOCX, junk), file("broken.xlsx", XLSX, Buffer.from("garbage")));
    expect(reply).to.include(`The attachment broken.docx (${DOCX}) could not be read: it is damaged or not the file type it claims to be.`);
    expect(reply).to.include(`The attachment broken.xlsx (${XLSX}) could not be read: it is damaged or not the file type it claims to be.`);
    expect(events.find((e) => e.type === "session.status_idle").payload.stop_reason.type).to.equal("end_turn");
  });

  it("a zip bomb DOCX or XLSX is refused before it is inflated, and one whose header lies is stopped at the declared size", async () => {
    const bomb = Buffer.alloc(120 * 2 ** 20, " ");
    const { reply, events } = await received(
      file("bomb.docx", DOCX, oneEntryZip("word/document.xml", bomb)),
      file("bomb.xlsx", XLSX, oneEntryZip("xl/workbook.xml", bomb)),
      file("liar.docx", DOCX, oneEntryZip("word/document.xml", bomb, 1000)),
    );
    expect(reply).to.include(`The attachment bomb.docx (${DOCX}) could not be read: it expands to over 100 MB.`);
    expect(reply).to.include(`The attachment bomb.xlsx (${XLSX}) could not be read: it expands to over 100 MB.`);
    expect(reply).to.include(`The attachment liar.docx (${DOCX}) could not be read: it is damaged or not the file type it claims to be.`);
    expect(events.find((e) => e.type === "session.status_idle").payload.stop_reason.type).to.equal("end_turn");
    const again = await received(file("refunds.docx", DOCX, refundsDocx()));
    expect(again.reply).to.include("Refund policy");
  });

  it("text files as their text, and an image type the model does not read as a note", async () => {
    const { reply } = await received(file("notes.md", "text/markdown", Buffer.from("# Notes\nCafé")), file("old.bmp", "image/bmp", Buffer.from("BM")));
    expect(reply).to.include("# Notes\nCafé").and.include("The attachment old.bmp (image/bmp) cannot be read by this model.");
  });

  it("a data URL's charset is how its text is read; a charset that names no encoding is a 400", async () => {
    const latin1 = Buffer.from("Café crème", "latin1");
    const withCharset = (charset: string, bytes: Buffer) => ({
      ...file("menu.txt", "text/plain", bytes),
      source: { type: "data_url", dataUrl: `data:text/plain;charset=${charset};base64,${bytes.toString("base64")}` },
    });
    const { reply } = await received(withCharset("ISO-8859-1", latin1), withCharset("utf-8", Buffer.from("Thé vert")));
    expect(reply).to.include("Café crème").and.include("Thé vert");
    const { sessionId } = await createSession(api);
    const refused = await api.post(`/v1/sessions/${sessionId}/events`, { events: [messageWith("hi", withCharset("klingon-8", latin1))] });
    expect(refused.status).to.equal(400);
    expect(refused.body.message).to.equal("events[0].attachments[0].source.dataUrl: charset must name a text encoding (e.g. utf-8)");
    const binary = {
      ...file("dot.png", "image/png", DOT_PNG),
      source: { type: "data_url", dataUrl: `data:image/png;charset=binary;base64,${DOT_PNG.toString("base64")}` },
    };
    expect((await api.post(`/v1/sessions/${sessionId}/events`, { events: [messageWith("hi", binary)] })).status).to.equal(202);
  });
});
